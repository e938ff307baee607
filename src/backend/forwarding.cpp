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

namespace {

// Whether `p` is a function of this library, the interposer itself. A library named as the real
// one (ENCORE_RCCL_LIBRARY=libencore-rccl.so), or a drop-in install where the real soname
// resolves to the interposer, would otherwise have every call forwarded to itself: a crash with
// a tool, an endless loop without.
bool is_self(const void* p) noexcept {
    static const int anchor = 0;
    Dl_info mine{}, theirs{};
    return p != nullptr && ::dladdr(&anchor, &mine) != 0 && ::dladdr(p, &theirs) != 0 &&
           mine.dli_fbase == theirs.dli_fbase;
}

}  // namespace

void* real_library::find(const char* name) noexcept {
    std::call_once(explicit_once_, [this] { open_explicit(); });
    if (use_explicit_) {
        void* p = explicit_ != nullptr ? ::dlsym(explicit_, name) : nullptr;
        if (!is_self(p)) return p;
        std::call_once(self_once_, [this] {
            std::fprintf(stderr, "[encore] %s: %s=%s is this interposer itself, not the real library: its calls fail\n",
                         library_, env_, std::getenv(env_));
        });
        return nullptr;
    }
    if (void* p = ::dlsym(RTLD_NEXT, name)) return p;  // never this library: it is searched after it
    std::lock_guard lk(fallback_mutex_);
    for (std::size_t i = 0; fallback_ == nullptr && i < sizeof sonames_ / sizeof sonames_[0] && sonames_[i] != nullptr;
         ++i) {
        fallback_ = ::dlopen(sonames_[i], RTLD_NOW | RTLD_LOCAL);
        if (fallback_ != nullptr && is_self(::dlsym(fallback_, name))) {  // the soname leads back here
            ::dlclose(fallback_);
            fallback_ = nullptr;
        }
    }
    void* p = fallback_ != nullptr ? ::dlsym(fallback_, name) : nullptr;
    return is_self(p) ? nullptr : p;
}

}  // namespace encore::backend
