// src/trace/output_template.hpp — the placeholders of encore-trace's -d and --output-file, per
// traced process, as rocprofv3 names them, so that a multi-process or multi-rank run (mpirun,
// srun, torchrun, a program that forks) writes one set of files per process where the user
// wants them:
//
//   %pid% %p, %ppid%, %hostname%   the process, its parent, the machine it ran on
//   %rank% %r                      the first of SLURM_PROCID, PMI_RANK, PMIX_RANK,
//                                  MV2_COMM_WORLD_RANK, OMPI_COMM_WORLD_RANK, MPI_RANKID,
//                                  MPI_LOCALRANKID, MPI_RANK, RANK (torchrun) set; else 0
//   %size% %s                      the first of SLURM_NTASKS, PMI_SIZE, MV2_COMM_WORLD_SIZE,
//                                  OMPI_COMM_WORLD_SIZE, MPI_NRANKS, WORLD_SIZE set; else 1
//   %nid%                          the rank if one of those is set, else the pid
//   %job% %j                       SLURM_JOB_ID, PBS_JOBID or LSB_JOBID; else 0
//   %env{NAME}%, $env{NAME}, %q{NAME}%   environment variable NAME ("" when unset; %q{} is
//                                  Nsight Systems' spelling)
//
// Values come from the traced process's environment as it started (process.meta), not the
// converter's. A placeholder encore does not know stays as written and is reported.
#pragma once

#include "record_file.hpp"

#include <string>
#include <vector>

namespace encore::trace {

/// `pattern` with its placeholders replaced for process `d`. `file_name`: a value's '/' becomes
/// '_' (a file name's placeholder must not make folders). Unknown placeholders are appended to
/// `unknown` (when given) and kept as written.
std::string expand_output_template(const std::string& pattern, const process_dir& d, bool file_name,
                                   std::vector<std::string>* unknown = nullptr);

}  // namespace encore::trace
