#!/usr/bin/env node
/** img-etl command line: parses arguments, runs a command, maps errors to exit codes. */
import { runCli } from './run-cli.js';

process.exitCode = await runCli(process.argv.slice(2));
