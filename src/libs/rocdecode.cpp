// src/libs/rocdecode.cpp — libencore-rocdecode declares the kinds it produces when it is loaded.
#include "core/registry.hpp"

namespace {
[[gnu::constructor]] void declare_kinds() { encore::core::add_producer(encore::tracing::produced_by::rocdecode); }
}  // namespace
