// UciProcess: Boost.Process child with Asio async pipes and an I/O thread (see uci_process.h).
#include "agents/uci/uci_process.h"

#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <sys/wait.h>

#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/read_until.hpp>
#include <boost/asio/streambuf.hpp>
#include <boost/asio/write.hpp>
#include <boost/process/args.hpp>
#include <boost/process/async_pipe.hpp>
#include <boost/process/child.hpp>
#include <boost/process/exe.hpp>
#include <boost/process/io.hpp>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <optional>
#include <thread>

namespace agents::uci {
namespace {

namespace asio = boost::asio;
namespace bp = boost::process;

constexpr size_t kMaxLine = 64 * 1024;  // a longer line is garbage; the engine is dropped
// Lines read but not yet taken: past this the I/O thread stops reading until the caller takes
// some, so an engine that floods its output blocks on its pipe instead of filling our memory.
constexpr size_t kMaxQueuedLines = 4096;

// Marks a pipe end close-on-exec, so that engines started later do not inherit it (an inherited
// write end would hide this engine's death from the reader).
void set_cloexec(int fd) {
  const int flags = ::fcntl(fd, F_GETFD);
  if (flags >= 0) ::fcntl(fd, F_SETFD, flags | FD_CLOEXEC);
}

// Engines are started one at a time, so that no fork sees another start's pipes before they are
// marked close-on-exec.
std::mutex& spawn_mutex() {
  static std::mutex mutex;
  return mutex;
}

}  // namespace

struct UciProcess::Impl {
  asio::io_context ioc;
  std::optional<asio::executor_work_guard<asio::io_context::executor_type>> work{ioc.get_executor()};
  bp::async_pipe out{ioc};  // the engine's stdout
  bp::async_pipe in{ioc};   // the engine's stdin
  bp::child child;
  asio::streambuf buffer{kMaxLine};
  std::thread io;

  std::mutex mutex;  // guards lines, closed, read_error, paused
  std::condition_variable cv;
  std::deque<std::string> lines;
  bool closed = false;
  bool paused = false;  // reading stopped at kMaxQueuedLines; read_line resumes it
  std::string read_error;

  std::deque<std::string> writes;  // I/O thread only
  bool writing = false;

  std::mutex child_mutex;  // guards child, killed
  bool killed = false;

  void start_read() {
    asio::async_read_until(out, buffer, '\n', [this](const boost::system::error_code& ec, size_t n) {
      if (ec) {
        std::string rest(asio::buffers_begin(buffer.data()), asio::buffers_end(buffer.data()));
        std::lock_guard lock(mutex);
        if (ec == asio::error::not_found)
          read_error = "the engine wrote a line longer than 64 KiB";
        else if (ec != asio::error::eof && ec != asio::error::operation_aborted)
          read_error = "reading the engine's output failed: " + ec.message();
        if (!rest.empty() && ec == asio::error::eof) lines.push_back(std::move(rest));
        closed = true;
        cv.notify_all();
        return;
      }
      std::string line(asio::buffers_begin(buffer.data()),
                       asio::buffers_begin(buffer.data()) + std::ptrdiff_t(n) - 1);
      buffer.consume(n);
      if (!line.empty() && line.back() == '\r') line.pop_back();
      bool full = false;
      {
        std::lock_guard lock(mutex);
        lines.push_back(std::move(line));
        full = paused = lines.size() >= kMaxQueuedLines;
      }
      cv.notify_all();
      if (!full) start_read();
    });
  }

  // Called with `mutex` held after a line was taken: restarts a paused reader.
  void resume_if_paused() {
    if (!paused || lines.size() >= kMaxQueuedLines / 2) return;
    paused = false;
    asio::post(ioc, [this] { start_read(); });
  }

  void write_next() {
    writing = true;
    asio::async_write(in, asio::buffer(writes.front()), [this](const boost::system::error_code& ec, size_t) {
      if (ec) {  // the engine is gone; the reader reports it
        writes.clear();
        writing = false;
        return;
      }
      writes.pop_front();
      if (writes.empty())
        writing = false;
      else
        write_next();
    });
  }

  void kill() {
    std::lock_guard lock(child_mutex);
    if (killed) return;
    killed = true;
    end_child();
  }

  // SIGKILL unless it already exited, then a blocking wait that reaps it. (Boost 1.74's
  // child::terminate reaps with WNOHANG right after the signal, which leaves a zombie when the
  // process has not died yet; wait() after the signal does not.)
  void end_child() {
    std::error_code ec;
    if (child.running(ec)) ::kill(child.id(), SIGKILL);
    child.wait(ec);
  }
};

UciProcess::UciProcess(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

std::expected<std::unique_ptr<UciProcess>, std::string> UciProcess::start(
    const std::string& executable, const std::vector<std::string>& args) {
  auto impl = std::make_unique<Impl>();
  {
    std::lock_guard lock(spawn_mutex());
    for (int fd : {impl->out.native_source(), impl->out.native_sink(), impl->in.native_source(),
                   impl->in.native_sink()})
      set_cloexec(fd);
    std::error_code ec;
    try {
      impl->child = bp::child(bp::exe = executable, bp::args = args, bp::std_out > impl->out,
                              bp::std_in<impl->in, bp::std_err> bp::null, ec);
    } catch (const std::exception& e) {
      return std::unexpected("cannot start " + executable + ": " + e.what());
    }
    if (ec || !impl->child.valid())
      return std::unexpected("cannot start " + executable + ": " + ec.message());
  }
  Impl* raw = impl.get();
  raw->io = std::thread([raw] {
    // Writing to an engine that died raises SIGPIPE in the writing thread: block it here (every
    // write happens on this thread), so the write fails with EPIPE instead of ending the program.
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &set, nullptr);
    raw->start_read();
    raw->ioc.run();
  });
  return std::unique_ptr<UciProcess>(new UciProcess(std::move(impl)));
}

UciProcess::~UciProcess() {
  kill();
  impl_->work.reset();
  impl_->ioc.stop();
  if (impl_->io.joinable()) impl_->io.join();
}

void UciProcess::send(const std::string& line) {
  asio::post(impl_->ioc, [impl = impl_.get(), text = line + "\n"]() mutable {
    impl->writes.push_back(std::move(text));
    if (!impl->writing) impl->write_next();
  });
}

UciProcess::Read UciProcess::read_line(std::string& line, Clock::time_point until,
                                       const std::atomic<bool>* cancel) {
  std::unique_lock lock(impl_->mutex);
  for (;;) {
    const auto now = Clock::now();
    // Past the deadline the lines already read are still taken, but reading is not resumed: an
    // engine that floods its output gets at most kMaxQueuedLines more, then the caller times out.
    if (now < until) impl_->resume_if_paused();
    if (!impl_->lines.empty()) {
      line = std::move(impl_->lines.front());
      impl_->lines.pop_front();
      return Read::Line;
    }
    if (impl_->closed) return Read::Closed;
    if (cancel && cancel->load()) return Read::Cancelled;
    if (now >= until) return Read::Timeout;
    impl_->cv.wait_until(lock, cancel ? std::min(until, now + std::chrono::milliseconds(10)) : until);
  }
}

UciProcess::Read UciProcess::read_until(std::string_view prefix, std::string& line, Clock::time_point until) {
  for (;;) {
    const Read r = read_line(line, until);
    if (r != Read::Line || line.starts_with(prefix)) return r;
  }
}

bool UciProcess::open() const {
  std::lock_guard lock(impl_->mutex);
  return !impl_->closed;
}

std::string UciProcess::exit_reason() {
  {
    std::lock_guard lock(impl_->mutex);
    if (!impl_->read_error.empty()) return impl_->read_error;
  }
  std::lock_guard lock(impl_->child_mutex);
  if (impl_->killed) return "killed by arena";
  // Its stdout has ended; give it a moment to exit before ending it. (Polled: Boost 1.74's
  // wait_for swaps the process-wide SIGCHLD handler, which is not safe beside other threads.)
  std::error_code ec;
  const auto until = Clock::now() + std::chrono::milliseconds(500);
  bool running = impl_->child.running(ec);
  while (running && !ec && Clock::now() < until) {
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
    running = impl_->child.running(ec);
  }
  if (running || ec) {
    impl_->killed = true;
    impl_->end_child();
    return "closed its output but did not exit (killed)";
  }
  const int status = impl_->child.native_exit_code();
  if (WIFSIGNALED(status)) return "killed by signal " + std::to_string(WTERMSIG(status));
  if (WIFEXITED(status)) return "exited with status " + std::to_string(WEXITSTATUS(status));
  return "ended";
}

void UciProcess::kill() {
  impl_->kill();
}

int UciProcess::pid() const {
  return impl_->child.id();
}

}  // namespace agents::uci
