// test/core/test_nodelete.cpp — encore's libraries that register pthread key destructors
// (exit_safe_local.hpp: per-thread state freed when a thread exits) stay loaded after dlclose:
// a destructor left pointing into an unloaded library would crash every later thread exit.
// argv: the libraries' paths. This program links none of them.
#include <dlfcn.h>

#include <cstdio>

int main(int argc, char** argv) {
    int failed = 0;
    for (int i = 1; i < argc; ++i) {
        void* h = dlopen(argv[i], RTLD_NOW | RTLD_LOCAL);
        if (h == nullptr) {
            std::printf("FAIL: cannot load %s: %s\n", argv[i], dlerror());
            ++failed;
            continue;
        }
        dlclose(h);
        void* again = dlopen(argv[i], RTLD_NOW | RTLD_NOLOAD);
        std::printf("%s: %s after dlclose\n", again != nullptr ? "PASS" : "FAIL", argv[i]);
        if (again == nullptr) ++failed;
    }
    return argc > 1 && failed == 0 ? 0 : 1;
}
