// Must not compile: "hsa_queue_creat" is not an operation of the HSA core domain. The first
// error must name it and the domain, before anything that spells the domain's op list
// (check_first_error.py; compile_fail_unknown_op_first_error in test/meson.build).
#include <encore/domains/hsa_core.hpp>
#include <encore/encore.hpp>
constexpr auto selected = encore::ops<encore::domains::hsa_core, "hsa_queue_create", "hsa_queue_creat">();
int main() { return selected[0]; }
