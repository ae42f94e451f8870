// A request to stop at the next checkpoint, made from a signal handler: `tracewarp run` asks for
// one on SIGUSR1, which Slurm sends before a job's time limit (sbatch --signal). A run with a
// checkpoint directory takes it as a checkpoint that is due: every rank of the run saves at the
// same committed point, then the run ends with StoppedError (exit code 3); a sweep takes no new
// run, keeps every finished one in its journal, and `run --resume` goes on from there.
#pragma once

namespace tracewarp {

void request_stop() noexcept;  // async-signal-safe
bool stop_requested() noexcept;
void clear_stop_request() noexcept;  // for tests

}  // namespace tracewarp
