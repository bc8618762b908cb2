/** What a pipeline gives the runner: its images table, its stages, its sinks and its identity. */
import { createHash } from 'node:crypto';
import { LoadError } from '../text/load-error.js';
import { pipelineTable, type Pipeline } from './pipeline.js';
import type { PipelineIdentity } from './pipeline-identity.js';
import type { SnapshotOptions } from './run-snapshot.js';
import type { RunTap } from './run-tap.js';
import type { Column } from '../schema/column-type.js';

/**
 * The runner's options that a pipeline sets: its images table, its stages, its sinks and its identity. Its `formats`
 * are a default the caller applies (`--to` and a library call's `formats` win).
 */
export type PipelineRunOptions = Required<Pick<SnapshotOptions, 'table' | 'stages' | 'pipeline' | 'taps'>>;

/**
 * What `pipeline` gives the runner; `sha256` names its file (the CLI hashes the file it loaded), by default a digest of
 * its definition (its name, formats, columns and the source text of its functions).
 */
export function pipelineRunOptions(pipeline: Pipeline, sha256?: string): PipelineRunOptions {
  const fault = pipelineFault(pipeline);
  if (fault !== undefined)
    throw LoadError.of('LOAD_INVALID_OPTION', `pipeline ${String(JSON.stringify(pipeline.name))}: ${fault}`);
  const identity: PipelineIdentity = { name: pipeline.name, sha256: sha256 ?? definitionDigest(pipeline) };
  return {
    table: pipelineTable(pipeline),
    stages: pipeline.stages ?? [],
    pipeline: identity,
    taps: pipeline.sinks ?? [],
  };
}

/**
 * What is wrong with the lists of `pipeline` (a .mjs file or a program is not type-checked): its stages, sinks and
 * columns, each a list of what it holds; undefined when nothing is. Checked before the run fetches anything.
 */
function pipelineFault(pipeline: Pipeline): string | undefined {
  const lists: [keyof Pipeline, string, (item: unknown) => boolean][] = [
    ['stages', 'stage functions (async generator functions of the batches)', (s) => typeof s === 'function'],
    [
      'sinks',
      'sinks (rowSink(…), objects with an open function)',
      (s) => typeof (s as RunTap | null)?.open === 'function',
    ],
    ['columns', 'columns (derivedColumn(…))', (c) => typeof (c as Column | null)?.name === 'string'],
  ];
  for (const [key, what, holds] of lists) {
    const value: unknown = pipeline[key];
    if (value === undefined) continue;
    const got = (v: unknown) => (typeof v === 'function' ? 'a function' : (JSON.stringify(v) ?? String(v)));
    if (!Array.isArray(value)) return `${key} must be a list of ${what}; got ${got(value)}`;
    const at = value.findIndex((item) => !holds(item));
    if (at >= 0) return `${key} must be a list of ${what}; item ${at + 1} is ${got(value[at])}`;
  }
  return undefined;
}

/**
 * The sha256 of what defines a pipeline that did not come from a file. What its functions capture (a constant of
 * another module, an environment variable) is not in their text, nor so in the digest: docs/library.md says to rename
 * the pipeline when that changes.
 */
function definitionDigest(pipeline: Pipeline): string {
  const definition = {
    name: pipeline.name,
    formats: pipeline.formats ?? null,
    columns: (pipeline.columns ?? []).map((c) => [c.name, c.type.kind, c.origin, String(c.derive ?? '')]),
    stages: (pipeline.stages ?? []).map(String),
    sinks: pipeline.sinks?.length ?? 0, // a sink is the user's: what it writes is not staged
  };
  return createHash('sha256').update(JSON.stringify(definition)).digest('hex');
}
