#!/usr/bin/env bash
# kill -9 while a large checkpoint is being written leaves the previous checkpoint intact and
# readable under its name (io::write_checkpoint writes a temporary file, renamed when complete),
# written in the foreground (odd attempts) or in the background by io::CheckpointWriter (even
# attempts: its writer thread and the threads writing the blocks killed).
# Usage: checkpoint_kill.sh CHECKPOINT_LOOP WORK_DIR
set -euo pipefail
loop=$1
work=$2
rm -rf "$work"
mkdir -p "$work"
ckpt=$work/run.ckpt
interrupted=0
declare -A killed=([write]=0 [write-background]=0)
interrupt() {  # interrupt ATTEMPT SIGNAL: runs the loop (mode by ATTEMPT's parity), signals it
  mode="write"
  [ $(($1 % 2)) = 0 ] && mode=write-background
  "$loop" "$mode" "$ckpt" 32 >"$work/log" 2>&1 &
  local pid=$!
  # Let it complete at least one checkpoint (the first attempt) and start another.
  for _ in $(seq 1 600); do
    [ -s "$work/log" ] && break
    sleep 0.05
  done
  sleep "0.$((RANDOM % 10))$((RANDOM % 10))"
  kill "-$2" "$pid"
  wait "$pid" 2>/dev/null || true
}
for attempt in $(seq 1 20); do
  interrupt "$attempt" KILL
  if ! out=$("$loop" check "$ckpt" 2>&1); then
    echo "FAIL: after kill -9 (attempt $attempt) the checkpoint is not readable: $out"
    exit 1
  fi
  last=$(tail -n 1 "$work/log" | awk '{print $2}')
  got=$(awk '{print $3}' <<<"$out")
  # The file is the last complete checkpoint: the one the program announced, or the next one
  # (renamed before the announcement was printed).
  if [ -n "$last" ] && [ "$got" != "$last" ] && [ "$got" != "$((last + 1))" ]; then
    echo "FAIL: the checkpoint holds step $got, the last one completed was step $last"
    exit 1
  fi
  # A temporary file left beside it: the kill interrupted a write.
  if ls -A "$work" | grep -q '^\.run\.ckpt\.stepgen-'; then
    interrupted=$((interrupted + 1))
    killed[$mode]=$((killed[$mode] + 1))
    rm -f "$work"/.run.ckpt.stepgen-*
  fi
  echo "attempt $attempt ($mode): $out (interrupted writes so far: $interrupted)"
  [ "$interrupted" -ge 3 ] && [ "${killed[write]}" -ge 1 ] && [ "${killed[write-background]}" -ge 1 ] && break
done
for m in write write-background; do
  if [ "${killed[$m]}" -lt 1 ]; then
    echo "FAIL: no kill fell inside a write ($m: the test proved nothing)"
    exit 1
  fi
done
# SIGTERM (and SIGINT, SIGHUP) during a write: the program removes its temporary file before
# it ends (rt::file::TemporaryFiles: none may be left), the checkpoint as above.
for attempt in $(seq 1 10); do
  interrupt "$attempt" TERM
  if ls -A "$work" | grep -q '^\.run\.ckpt\.stepgen-'; then
    echo "FAIL: SIGTERM (attempt $attempt, $mode) left a temporary file:"; ls -A "$work"; exit 1
  fi
  out=$("$loop" check "$ckpt" 2>&1) || { echo "FAIL: after SIGTERM the checkpoint is not readable: $out"; exit 1; }
  echo "SIGTERM attempt $attempt ($mode): $out, no temporary file left"
done
rm -rf "$work"
echo "PASS: $interrupted writes killed, the previous checkpoint intact each time; SIGTERM left no temporary file"
