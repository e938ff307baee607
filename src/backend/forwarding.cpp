// src/backend/forwarding.cpp — finding a forwarding library's real functions (forwarding.hpp).
#include "backend/forwarding.hpp"

#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>

namespace encore::backend {

real_library::real_library(const char* library, const char* env, const char* const* sonames, std::size_t count) noexcept
    : library_(library), env_(env) {
    for (std::size_t i = 0; i < count && i < sizeof sonames_ / sizeof sonames_[0]; ++i) sonames_[i] = sonames[i];
}

void real_library::open_explicit() noexcept {
    const char* path = std::getenv(env_);
    if (path == nullptr || *path == '\0') return;
    use_explicit_ = true;
    explicit_ = ::dlopen(path, RTLD_NOW | RTLD_LOCAL);
    // Said once: every later lookup then fails, and each missing function warns once by name.
    if (explicit_ == nullptr)
        std::fprintf(stderr, "[encore] %s: cannot load %s=%s: %s\n", library_, env_, path, ::dlerror());
}

void* real_library::find(const char* name) noexcept {
    std::call_once(explicit_once_, [this] { open_explicit(); });
    if (use_explicit_) return explicit_ != nullptr ? ::dlsym(explicit_, name) : nullptr;
    if (void* p = ::dlsym(RTLD_NEXT, name)) return p;
    std::lock_guard lk(fallback_mutex_);
    for (std::size_t i = 0; fallback_ == nullptr && i < sizeof sonames_ / sizeof sonames_[0] && sonames_[i] != nullptr;
         ++i)
        fallback_ = ::dlopen(sonames_[i], RTLD_NOW | RTLD_LOCAL);
    return fallback_ != nullptr ? ::dlsym(fallback_, name) : nullptr;
}

}  // namespace encore::backend
