// LlmPlayer: prompt building per mode and history, and the per-move state machine driven by the
// backend's completion callbacks.
#include "agents/llm/llm_player.h"

#include <fmt/format.h>

#include <algorithm>

#include "agents/llm/answer_reader.h"
#include "base/strings.h"

namespace agents::llm {

using backend::CompletionRequest;
using backend::CompletionResult;

struct LlmPlayer::State {
  LlmAgentConfig config;
  std::map<std::string, PromptPair> prompts;
  std::shared_ptr<backend::LlmBackend> backend;

  std::mutex mutex;  // guards everything below
  GameStart start;
  uint64_t game_serial = 0;  // bumped by new_game / end_game: late results of a past game are dropped
  std::vector<engine::ChatMessage> conversation;  // conversation mode: accepted user/assistant turns
  std::shared_ptr<const backend::Continuation> continuation;  // the last accepted request's tokens
  std::shared_ptr<Job> current;
  std::mt19937_64 rng;
};

struct LlmPlayer::Job {
  MoveRequest request;
  std::shared_ptr<MoveTicket> ticket;
  uint64_t game_serial = 0;
  Notation notation = Notation::Uci;
  const PromptPair* prompts = nullptr;
  PromptValues values;
  std::string system_text;
  std::vector<std::string> choices;          // the legal moves in the agent's notation
  std::vector<engine::ChatMessage> history;  // conversation so far (snapshot)
  std::shared_ptr<const backend::Continuation> continue_from;
  int32_t attempt = 0;          // free mode: answers rejected so far
  std::string illegal_reason;   // why the last answer was rejected (free mode retries)
  int32_t num_requests = 0;     // answers received
  bool reasoning_done = false;  // reason mode: the thinking request has answered
  std::string reasoning;
  std::string user_text;  // the user turn last sent
  std::string session;    // "agent/game": the routing hint for remote servers
  MoveResult result;      // accumulated over the move's requests
  Clock::time_point started;

  std::mutex mutex;  // guards pending and cancelled
  std::shared_ptr<backend::PendingCompletion> pending;
  bool cancelled = false;

  // The {illegal_reason} value: empty on a first attempt, else the reason and a space.
  std::string illegal_reason_text() const;
};

namespace {

using State = LlmPlayer::State;
using Job = LlmPlayer::Job;

void send(const std::shared_ptr<State>& state, const std::shared_ptr<Job>& job);

// The plain-text prompt (chat: false): system, blank line, then each user turn directly followed
// by its answer, turns separated by a blank line; the open user turn last.
std::string plain_prompt(const std::string& system, const std::vector<engine::ChatMessage>& turns) {
  std::string out = system.empty() ? std::string() : system + "\n\n";
  for (const auto& m : turns) out += m.role == "assistant" ? m.content + "\n\n" : m.content;
  return out;
}

CompletionRequest build_request(const State& state, Job& job) {
  const LlmAgentConfig& c = state.config;
  job.values[static_cast<size_t>(Placeholder::IllegalReason)] = job.illegal_reason_text();
  job.user_text = job.prompts->move.render(job.values);
  CompletionRequest r;
  r.chat = c.chat;
  std::vector<engine::ChatMessage> turns = job.history;
  turns.push_back({"user", job.user_text});
  if (c.chat) {
    if (!job.system_text.empty()) r.messages.push_back({"system", job.system_text});
    r.messages.insert(r.messages.end(), turns.begin(), turns.end());
  } else {
    r.prompt = plain_prompt(job.system_text, turns);
  }
  r.sampling = c.sampling;
  r.priority = job.request.priority;
  if (job.request.deadline != Clock::time_point{}) r.deadline = job.request.deadline;
  r.continue_from = job.continue_from;
  r.session = job.session;
  // A conversation grows one game's own prefix: its requests belong together on one replica.
  // Without history only the system prompt is shared, and the fleet routes on that.
  if (c.history == HistoryMode::Conversation) r.affinity = job.session;
  switch (c.mode) {
    case OutputMode::Constrained:
      r.choices = job.choices;
      break;
    case OutputMode::Free:
      break;
    case OutputMode::Reason:
      if (!job.reasoning_done) {
        r.sampling.max_tokens = c.reasoning_tokens;
        r.sampling.stop = {c.reasoning_marker};
      } else {
        // The move after the marker, constrained; the prompt extends the thinking request's.
        r.assistant_prefix = job.reasoning + c.reasoning_marker;
        for (const auto& m : job.choices) r.choices.push_back(" " + m);
      }
      break;
  }
  return r;
}

// Resolves the job's ticket; on a played move in conversation mode, keeps the turn.
void finish(const std::shared_ptr<State>& state, const std::shared_ptr<Job>& job, MoveResult result,
            const std::string& answer, std::shared_ptr<const backend::Continuation> continuation) {
  result.total_seconds = std::chrono::duration<double>(Clock::now() - job->started).count();
  result.raw = to_valid_utf8(result.raw);
  result.reasoning = to_valid_utf8(result.reasoning);
  result.prompt = to_valid_utf8(result.prompt);
  if (result.failure) result.failure->message = to_valid_utf8(result.failure->message);
  {
    std::lock_guard lock(state->mutex);
    if (state->current == job) state->current.reset();
    if (job->game_serial == state->game_serial && result.ok() &&
        state->config.history == HistoryMode::Conversation) {
      state->conversation.push_back({"user", job->user_text});
      state->conversation.push_back({"assistant", answer});
      state->continuation = std::move(continuation);
    }
  }
  job->ticket->resolve(std::move(result));
}

// What to do with a free-mode answer that named no legal move: retry, or on_failure.
void reject(const std::shared_ptr<State>& state, const std::shared_ptr<Job>& job, MoveFailure why) {
  const LlmAgentConfig& c = state->config;
  if (job->attempt < c.max_retries) {
    ++job->attempt;
    job->result.num_retries = job->attempt;
    job->illegal_reason = why.message;
    send(state, job);
    return;
  }
  MoveResult r = std::move(job->result);
  switch (c.on_failure) {
    case OnFailure::Forfeit:
      r.failure = std::move(why);
      break;
    case OnFailure::Resign:
      r.resigned = true;
      break;
    case OnFailure::RandomMove: {
      const std::vector<std::string> moves = legal_moves(job->request)->uci;
      std::lock_guard lock(state->mutex);
      r.move = moves[std::uniform_int_distribution<size_t>(0, moves.size() - 1)(state->rng)];
      break;
    }
  }
  finish(state, job, std::move(r), {}, nullptr);
}

void on_result(const std::shared_ptr<State>& state, const std::shared_ptr<Job>& job, CompletionResult cr) {
  const LlmAgentConfig& c = state->config;
  MoveResult& acc = job->result;
  const bool first_request = job->num_requests++ == 0;
  acc.num_prompt_tokens += cr.num_prompt_tokens;
  acc.num_cached_tokens += cr.num_cached_tokens;
  acc.num_completion_tokens += cr.num_completion_tokens;
  if (first_request) {
    acc.queue_seconds = cr.queue_seconds;
    acc.ttft_seconds = cr.ttft_seconds;
  }
  acc.prompt = cr.prompt_text;
  if (!cr.replica.empty()) acc.replica = cr.replica;
  {
    std::lock_guard lock(job->mutex);
    job->pending.reset();
  }
  if (cr.failure && cr.context_overflow && !job->history.empty()) {
    // The game's conversation outgrew the model's context: continue it from this move afresh.
    {
      std::lock_guard lock(state->mutex);
      if (job->game_serial == state->game_serial) {
        state->conversation.clear();
        state->continuation.reset();
      }
    }
    job->history.clear();
    job->continue_from.reset();
    job->reasoning_done = false;
    job->reasoning.clear();
    acc.reasoning.clear();
    send(state, job);
    return;
  }
  if (cr.failure) {
    acc.raw = job->reasoning.empty() ? cr.text : job->reasoning;
    acc.failure = std::move(cr.failure);
    finish(state, job, std::move(acc), {}, nullptr);
    return;
  }
  const games::Game& game = *job->request.game;
  if (c.mode == OutputMode::Reason && !job->reasoning_done) {
    job->reasoning_done = true;
    job->reasoning = cr.text;
    acc.reasoning = cr.text;
    job->continue_from = cr.continuation;
    send(state, job);
    return;
  }
  if (c.mode == OutputMode::Free) {
    acc.raw = cr.text;
    auto move = find_move(game, cr.text);
    if (!move) return reject(state, job, std::move(move.error()));
    acc.move = *move;
    return finish(state, job, std::move(acc), cr.text, cr.continuation);
  }
  // Constrained (or reason's second request): the server should have kept to the list, but the
  // answer is checked all the same (a remote server may ignore the constraint field).
  const std::string answer(base::trim(cr.text));
  const std::string said =
      c.mode == OutputMode::Reason ? job->reasoning + c.reasoning_marker + cr.text : cr.text;
  acc.raw = said;
  const bool listed = std::find(job->choices.begin(), job->choices.end(), answer) != job->choices.end();
  auto move = game.parse_move(answer);
  if (!listed || !move) {
    acc.failure = MoveFailure{answer.empty() ? FailureKind::Unparseable : FailureKind::Illegal,
                              fmt::format("constrained answer '{}' is not a legal move{}", answer,
                                          move ? "" : ": " + move.error().message)};
    return finish(state, job, std::move(acc), {}, nullptr);
  }
  acc.move = *move;
  finish(state, job, std::move(acc), said, cr.continuation);
}

void send(const std::shared_ptr<State>& state, const std::shared_ptr<Job>& job) {
  bool cancelled = false;
  {
    std::lock_guard lock(job->mutex);
    cancelled = job->cancelled;
  }
  if (cancelled) {
    MoveResult r = std::move(job->result);
    r.failure = MoveFailure{FailureKind::Cancelled, "the move was cancelled"};
    finish(state, job, std::move(r), {}, nullptr);
    return;
  }
  CompletionRequest request = build_request(*state, *job);
  auto pending = state->backend->submit(
      std::move(request), [state, job](CompletionResult r) { on_result(state, job, std::move(r)); });
  bool cancel_now = false;
  {
    std::lock_guard lock(job->mutex);
    if (!job->ticket->ready()) job->pending = pending;
    cancel_now = job->cancelled;
  }
  if (cancel_now && pending) pending->cancel();
}

}  // namespace

std::string LlmPlayer::Job::illegal_reason_text() const {
  if (illegal_reason.empty()) return {};
  return fmt::format("Your answer was rejected: {}. ", illegal_reason);
}

LlmPlayer::LlmPlayer(std::string name, std::vector<std::string> variants, LlmAgentConfig config,
                     std::map<std::string, PromptPair> prompts, std::shared_ptr<backend::LlmBackend> backend)
    : name_(std::move(name)), variants_(std::move(variants)), state_(std::make_shared<State>()) {
  state_->rng.seed(config.sampling.seed.value_or(std::hash<std::string>{}(name_)));
  state_->config = std::move(config);
  state_->prompts = std::move(prompts);
  state_->backend = std::move(backend);
}

LlmPlayer::~LlmPlayer() {
  std::shared_ptr<Job> job;
  {
    std::lock_guard lock(state_->mutex);
    job = state_->current;
  }
  if (job) job->ticket->cancel();
}

bool LlmPlayer::supports(std::string_view variant) const {
  if (!variants_.empty() && std::find(variants_.begin(), variants_.end(), variant) == variants_.end())
    return false;
  const auto& c = state_->config;
  if (c.notation && !notation_fits(*c.notation, variant)) return false;
  return state_->prompts.count(game_family(variant)) > 0;
}

std::optional<MoveFailure> LlmPlayer::new_game(const GameStart& start) {
  if (!supports(start.variant))
    return MoveFailure{FailureKind::BackendError,
                       fmt::format("agent '{}' does not play {}", name_, start.variant)};
  std::lock_guard lock(state_->mutex);
  state_->start = start;
  ++state_->game_serial;
  state_->conversation.clear();
  state_->continuation.reset();
  return std::nullopt;
}

void LlmPlayer::end_game(const GameEnd&) {
  std::shared_ptr<Job> job;
  {
    std::lock_guard lock(state_->mutex);
    ++state_->game_serial;
    state_->conversation.clear();
    state_->continuation.reset();
    job = std::move(state_->current);
  }
  if (job) job->ticket->cancel();
}

std::shared_ptr<MoveTicket> LlmPlayer::start_move(const MoveRequest& request) {
  auto fail = [&](FailureKind kind, std::string message) {
    MoveResult r;
    r.failure = MoveFailure{kind, std::move(message)};
    return resolved_ticket(std::move(r), request);
  };
  if (!request.game) return fail(FailureKind::BackendError, "no position given");
  const std::string variant = request.game->variant();
  if (!supports(variant))
    return fail(FailureKind::BackendError, fmt::format("agent '{}' does not play {}", name_, variant));
  const std::shared_ptr<const LegalMoves> legal = legal_moves(request);
  if (legal->uci.empty()) return fail(FailureKind::Illegal, "there is no legal move in this position");

  auto job = std::make_shared<Job>();
  job->request = request;
  job->request.legal = legal;  // computed once for this move
  job->started = Clock::now();
  job->ticket = std::make_shared<MoveTicket>();
  job->ticket->set_on_ready(request.on_ready);
  const LlmAgentConfig& c = state_->config;
  job->notation = c.notation.value_or(default_notation(variant));
  job->prompts = &state_->prompts.at(game_family(variant));
  job->choices = job->notation == Notation::Uci ? legal->uci : legal->human;
  const PromptTemplate& move = job->prompts->move;
  job->values = position_values(
      job->request, job->notation,
      {.captures = move.uses(Placeholder::Captures), .escapes = move.uses(Placeholder::Escapes)});
  {
    std::lock_guard lock(state_->mutex);
    job->game_serial = state_->game_serial;
    job->session = state_->start.game_id.empty() ? name_ : name_ + "/" + state_->start.game_id;
    if (c.history == HistoryMode::Conversation) {
      job->history = state_->conversation;
      job->continue_from = state_->continuation;
    }
    state_->current = job;
  }
  job->system_text = job->prompts->system.render(job->values);
  job->ticket->set_cancel_hook([job] {
    std::shared_ptr<backend::PendingCompletion> pending;
    {
      std::lock_guard lock(job->mutex);
      job->cancelled = true;
      pending = job->pending;
    }
    if (pending) pending->cancel();
  });
  send(state_, job);
  return job->ticket;
}

}  // namespace agents::llm
