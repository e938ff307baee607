// src/core/core_lock.cpp — the count core_lock.hpp's counted locks keep. Its own file, below every
// user of the counted locks (warn.cpp's first_time, the registry's locks and fork handlers), so
// that none of them calls up into another for it (docs/architecture.md: no call cycles).
#include "core_lock.hpp"

namespace encore::core {

__attribute__((tls_model("initial-exec"))) constinit thread_local std::uint32_t t_core_locks = 0;

}  // namespace encore::core
