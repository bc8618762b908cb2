/**
 * Preloaded (`node --import`) into a measured child when GNU time is missing: at exit it writes the
 * process's own `process.resourceUsage()` (peak RSS, CPU time) to $IMG_ETL_BENCH_RUSAGE.
 */
import { writeFileSync } from 'node:fs';

const target = process.env['IMG_ETL_BENCH_RUSAGE'];
// The measured program must not inherit the variable into its own children.
delete process.env['IMG_ETL_BENCH_RUSAGE'];
if (target !== undefined) process.on('exit', () => writeFileSync(target, JSON.stringify(process.resourceUsage())));
