/* rocprofiler-sdk/profile_config.h — the reference SDK's 2024 name of counter_config.h
 * ("profile_config" became "counter_config"): rocprofiler_create_profile_config and
 * rocprofiler_destroy_profile_config are declared there, over the counter_config functions. */
#pragma once

#include <rocprofiler-sdk/counter_config.h>
