// Must not compile: an api::unavailable op (a name without a prototype in this build) has no
// wrapper. With -DENCORE_CONTROL the same domain's api::fn op is used instead, and it compiles.
#include <encore/tracing/wrapper.hpp>

namespace {
struct symbols : encore::api::domain<"SYMBOLS", encore::kind::cuda_driver_api, encore::api::no_table,
                                     encore::api::fn<"f", int(int), "x">, encore::api::unavailable<"g">> {};
static_assert(symbols::size == 2 && symbols::id_of<"g">() == 1, "an unavailable op keeps its id");
#ifdef ENCORE_CONTROL
constexpr std::size_t op = 0;
#else
constexpr std::size_t op = 1;
#endif
}  // namespace

int main() { return encore::tracing::wrapper<symbols, op>::next.load() == nullptr ? 0 : 1; }
