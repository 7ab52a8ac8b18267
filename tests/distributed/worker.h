// tests/distributed/worker.h — dist_worker's scenarios kept in files of their own.
#pragma once

#include <string>

/// Runs the DistributedDataParallel scenario `scenario` (worker_ddp.cpp) after init_process_group; 0 when its
/// checks pass, 2 for an unknown name; a failed check throws.
int ddp_scenario(const std::string& scenario, const std::string& dir);
