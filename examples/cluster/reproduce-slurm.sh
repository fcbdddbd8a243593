#!/usr/bin/env bash
# The reproduction as a Slurm job array: task I of N runs the I-th of N
# disjoint parts of every selected job (`elicit reproduce --shard I/N`)
# and writes parts/shard-I-of-N.cbor; one merge afterwards writes the
# report.md, results.json and figures a single run writes.
#
#   sbatch --array=1-16 examples/cluster/reproduce-slurm.sh
#   # when the array is done (or chained: sbatch --dependency=afterok:JOBID):
#   elicit merge parts --out reproduction
#
# Options pass through ELICIT_ARGS, e.g.
#   ELICIT_ARGS="--only 000-thm1 --trials 100000" sbatch --array=1-64 ...
# Every task must get the same options and the same `elicit` build; the
# merge refuses parts that differ, naming what differs.
#SBATCH --job-name=elicit-reproduce
#SBATCH --cpus-per-task=2
#SBATCH --time=04:00:00
#SBATCH --output=elicit-reproduce-%A_%a.out
set -euo pipefail
: "${SLURM_ARRAY_TASK_ID:?run with sbatch --array=1-N}"
: "${SLURM_ARRAY_TASK_COUNT:?run with sbatch --array=1-N}"
ELICIT="${ELICIT:-elicit}"
# shellcheck disable=SC2086 # ELICIT_ARGS is a list of options
"$ELICIT" reproduce ${ELICIT_ARGS:-} \
    --jobs "${SLURM_CPUS_PER_TASK:-1}" \
    --shard "${SLURM_ARRAY_TASK_ID}/${SLURM_ARRAY_TASK_COUNT}" \
    --out "${PARTS:-parts}"
