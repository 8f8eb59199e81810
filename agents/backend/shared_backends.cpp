#include "agents/backend/shared_backends.h"

namespace agents::backend {

SharedBackends::Made SharedBackends::get(const std::string& key, const std::function<Made()>& make) {
  std::lock_guard lock(mutex_);  // held while making: two first instances must not make two
  if (const auto it = backends_.find(key); it != backends_.end()) return it->second;
  Made made = make();
  if (made) backends_.emplace(key, *made);
  return made;
}

}  // namespace agents::backend
