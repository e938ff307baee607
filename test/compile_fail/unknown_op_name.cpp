// Must not compile: "hsa_queue_craete" is not an operation of the HSA core domain.
#include <encore/domains/hsa_core.hpp>
constexpr auto id = encore::domains::hsa_core::id_of<"hsa_queue_craete">();
int main() { return id; }
