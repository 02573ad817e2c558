#!/usr/bin/env bash
# The split pass of moac CUDA kernels under Nsight Compute, on the GPU machine: DRAM and L2 bytes, instructions,
# issue rate, occupancy and stall reasons for decode (n = 1M, f32 and bf16), GQA (B=1 hq=32 hkv=8 n=32k, f32
# and bf16) and MQA (B=8 hq=32 hkv=1 n=32k, f32). usage: bench/cuda/ncu.sh LIBRARY (bench/cuda/NOTES.md #44)
cd "$(dirname "$0")/../.."
NCU=$(command -v ncu || ls /usr/local/cuda*/bin/ncu 2>/dev/null | head -1)
echo "ncu: $NCU"
M=dram__bytes_read.sum,lts__t_bytes.sum,sm__warps_active.avg.pct_of_peak_sustained_active,sm__inst_executed.sum,smsp__inst_executed.avg.per_cycle_active,gpu__time_duration.sum,launch__registers_per_thread,launch__occupancy_limit_registers,smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio,smsp__average_warps_issue_stalled_short_scoreboard_per_issue_active.ratio,smsp__average_warps_issue_stalled_wait_per_issue_active.ratio,smsp__average_warps_issue_stalled_lg_throttle_per_issue_active.ratio,smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio,smsp__average_warps_issue_stalled_math_pipe_throttle_per_issue_active.ratio,smsp__average_warps_issue_stalled_no_instruction_per_issue_active.ratio,smsp__average_warps_issue_stalled_membar_per_issue_active.ratio,smsp__average_warps_issue_stalled_mio_throttle_per_issue_active.ratio,smsp__average_warps_issue_stalled_branch_resolving_per_issue_active.ratio,smsp__average_warps_issue_stalled_selected_per_issue_active.ratio,smsp__average_warps_issue_stalled_not_selected_per_issue_active.ratio
for cfg in "1 1 1 1048576 f32" "1 1 1 1048576 bf16" "1 32 8 32768 f32" "1 32 8 32768 bf16" "8 32 1 32768 f32"; do
  echo "== $cfg"
  $NCU --kernel-name regex:stage0 --metrics $M --csv python3 bench/cuda/ncu_one.py "${1:?usage: bench/cuda/ncu.sh LIBRARY}" $cfg 2>&1 | grep -v "^==PROF==" | tail -n +2 | awk -F'","' '{print $(NF-2)" = "$NF" "$(NF-1)}' | sed 's/"//g'
done
