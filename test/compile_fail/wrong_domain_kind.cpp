// Must not compile: a table domain listing a symbol op (api::fn) instead of a slot op.
#include <encore/api/domain.hpp>
#include <encore/domains/detail/hsa_table.hpp>
struct bad
    : encore::api::domain<"BAD", encore::kind::hsa_core_api, ::CoreApiTable, encore::api::fn<"hsa_init", hsa_status_t()>> {
};
static_assert(bad::size == 1);
int main() { return 0; }
