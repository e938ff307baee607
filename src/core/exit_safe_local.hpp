// src/core/exit_safe_local.hpp — a per-thread object that outlives the thread's C++
// thread_local destructors.
//
// A `thread_local T` with a destructor is destroyed in reverse order of construction, so a
// thread_local built before it (the program's, a runtime's) is destroyed after it, and that
// destructor's traced HIP/CUDA/roctx calls would use the destroyed object. exit_safe_local<T>
// keeps T on the heap behind a trivially destructible thread_local pointer and deletes it from a
// pthread key destructor, which glibc runs after every C++ thread_local destructor. A use after
// that (another key's destructor) makes a new T, set on the key again so glibc's next round
// deletes it too (PTHREAD_DESTRUCTOR_ITERATIONS rounds; one made after the last is never freed).
// Used for roctx's open ranges, OMPT's scopes and the CUDA launch path's caches. Not for what a
// signal handler's traced call may make first (get() calls new): the tracing core's thread state
// (src/core/registry.cpp) and buffer rings (buffer.cpp) use pthread keys of their own, made at
// load, and mapped pages.
#pragma once

#include <pthread.h>

#include <new>

namespace encore::core {

template <class T>
class exit_safe_local {
public:
    /// This thread's T, made on first use; null only if it could not be allocated.
    static T* get() noexcept {
        if (t_object != nullptr) [[likely]]
            return t_object;
        T* const made = new (std::nothrow) T{};
        if (made == nullptr) return nullptr;
        // Out of keys (PTHREAD_KEYS_MAX at first use): the object is made but never freed.
        if (const key_state& ks = key(); ks.ok && ::pthread_setspecific(ks.k, made) != 0) {
            delete made;  // no memory for the key's slot: better no object than one never freed
            return nullptr;
        }
        t_object = made;
        return made;
    }

private:
    struct key_state {
        pthread_key_t k{};
        bool ok = false;
        key_state() noexcept { ok = ::pthread_key_create(&k, &drop) == 0; }
    };
    static const key_state& key() noexcept {
        static const key_state ks;
        return ks;
    }
    static void drop(void* p) noexcept {
        if (t_object == p) t_object = nullptr;
        delete static_cast<T*>(p);
    }

    static inline thread_local T* t_object = nullptr;
};

}  // namespace encore::core
