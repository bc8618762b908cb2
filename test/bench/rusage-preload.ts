/**
 * Preloaded (`node --import`) into a measured child when GNU time is missing: at exit it writes the
 * process's own `process.resourceUsage()` (peak RSS, CPU time) to $BENCH_RUSAGE_FILE.
 */
import { writeFileSync } from 'node:fs';

const target = process.env['BENCH_RUSAGE_FILE'];
// The measured program must not inherit the variable into its own children.
delete process.env['BENCH_RUSAGE_FILE'];
if (target !== undefined) process.on('exit', () => writeFileSync(target, JSON.stringify(process.resourceUsage())));
