// src/core/replay_flow.hpp — the one pass loop of kernel replay (replay.cpp) and range replay
// (range_replay.cpp): the PASS records, the tool's local start/stop toggles, where the loop stops.
//
// A flow is a class of core's that knows its records and drives its backend's steps; the loop is
// the same for both:
//
//   for pass i from first_pass:                   kernel: 0; range: 1 (pass 0 ran as submitted)
//       memory_back(i)                            kernel: RESTORE records and restore (not before
//                                                 pass 0); range: restore to the range's start
//       PASS ENTER (toggles armed) -> run_pass(i, contexts not locally stopped) -> PASS EXIT
//       stop: a stuck pass, the last of a fixed count, the pass cap, replay_continue == 0
//       between(i)                                kernel: the progress line; range: nothing
//
// What a flow F declares (both in core; a backend sees only its own steps interface):
//   payload, reason          the record payload; a step's static reason (null: went well)
//   kind, pass_op            the callback kind and its PASS operation
//   start_field, stop_field, continue_field   the payload's toggle and continue members
//   ctx, cont, first_pass, passes, cap        the replay context, CONFIG ENTER's continue
//                            callback, the first pass, the count (0: until continue says 0), the cap
//   memory_back(i), pass_payload(i), user_data(), deliver(op, phase, p, ud), run_pass(i, contexts),
//   on_pass_exit(p), stuck(reason), capped(), ask(continue, i, ud), between(i)
#pragma once

#include "registry.hpp"
#include "replay.hpp"

#include <rocprofiler-sdk/callback_tracing.h>

#include <cstdint>

namespace encore::core::replay::flow {

/// The loop flow F runs on this thread, if any. One per flow, so a range's passes and a kernel
/// replay never see each other's toggles (or the kernel replay checksum).
template <class F>
struct loop {
    F* flow;
    std::uint64_t locally_stopped = 0;  // contexts the tool masked for the rest of this loop
    bool armed = false;                 // inside PASS ENTER: the toggles are legal
};
template <class F>
inline thread_local loop<F>* t_loop = nullptr;

/// The payload's replay_*_start/stop_context: legal only inside PASS ENTER of this thread's loop.
template <class F, bool On>
rocprofiler_status_t toggle(rocprofiler_context_id_t id) noexcept {
    loop<F>* l = t_loop<F>;
    if (l == nullptr || !l->armed) return ROCPROFILER_STATUS_ERROR_CONTEXT_ERROR;
    if (find_context(id) == nullptr) return ROCPROFILER_STATUS_ERROR_CONTEXT_NOT_FOUND;
    const std::uint64_t bit = std::uint64_t{1} << id.handle;
    l->locally_stopped = On ? (l->locally_stopped & ~bit) : (l->locally_stopped | bit);
    return ROCPROFILER_STATUS_SUCCESS;
}

/// Runs f's passes (see the top of this file). Returns the passes run, pass 0 included.
template <class F>
std::uint64_t run_passes(F& f) noexcept {
    loop<F> state{&f};
    t_loop<F> = &state;
    std::uint64_t passes_run = f.first_pass;
    for (std::uint64_t i = f.first_pass;; ++i) {
        f.memory_back(i);
        typename F::payload p = f.pass_payload(i);
        p.*F::start_field = &toggle<F, true>;
        p.*F::stop_field = &toggle<F, false>;
        rocprofiler_user_data_t ud = f.user_data();  // each pass its own copy of CONFIG ENTER's
        state.armed = true;
        f.deliver(F::pass_op, ROCPROFILER_CALLBACK_PHASE_ENTER, p, ud);
        state.armed = false;
        const typename F::reason stuck = f.run_pass(i, ~state.locally_stopped);
        passes_run = i + 1;
        p.*F::start_field = nullptr;
        p.*F::stop_field = nullptr;
        f.on_pass_exit(p);
        p.*F::continue_field = f.cont;  // in effect for this pass; PASS EXIT may override it
        f.deliver(F::pass_op, ROCPROFILER_CALLBACK_PHASE_EXIT, p, ud);
        if (stuck != nullptr) {
            f.stuck(stuck);
            break;
        }
        // The continue callback is not consulted after the last pass of a fixed count, nor at the cap.
        if (f.passes != 0 && i + 1 >= f.passes) break;
        if (i + 1 >= f.cap) {
            f.capped();
            break;
        }
        // A throwing continue callback ends the loop (as if it said 0).
        if (const auto cont = p.*F::continue_field;
            cont != nullptr && tool_answer(f.ctx, F::kind, 0, [&] { return f.ask(cont, i, ud); }) == 0)
            break;
        f.between(i);
    }
    t_loop<F> = nullptr;
    return passes_run;
}

}  // namespace encore::core::replay::flow
