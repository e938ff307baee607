// Must not compile: hsa_queue_create has 8 parameters but only 7 names are given.
#include <encore/api/domain.hpp>
#include <encore/domains/detail/hsa_table.hpp>
struct bad
    : encore::api::domain<"BAD", encore::kind::hsa_core_api, ::CoreApiTable,
                          encore::api::op<"hsa_queue_create", &::CoreApiTable::hsa_queue_create_fn, "agent", "size",
                                          "type", "callback", "data", "private_segment_size", "group_segment_size">> {};
static_assert(bad::size == 1);
int main() { return 0; }
