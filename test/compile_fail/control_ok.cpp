// Control for the must-not-compile tests: the same include paths and flags compile this, so
// their failures come from the error each one demonstrates.
#include <encore/domains/hsa_core.hpp>
constexpr auto id = encore::domains::hsa_core::id_of<"hsa_queue_create">();
int main() { return id == 7 ? 0 : 1; }
