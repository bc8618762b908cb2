/** What a scenario measured, and the pieces the four scenarios share. */
import type { BenchOptions, ScenarioName } from './bench-options.js';
import { FORMATS, type FetchSettings, type ImgEtlPlan, type RunKind } from './bench-runs.js';
import type { LoadModel } from './bench-service.js';
import type { BenchContext } from './measure-rounds.js';
import type { RunGroup } from './run-group.js';
import type { TargetResult } from './target-result.js';

/** How a scenario's runs fetched. */
export interface ScenarioFetch {
  concurrency: number;
  /** The page size img-etl asked for (its default unless the bench's --page-size). */
  imgEtlPageSizeRequested: number;
  /** The page size the service applied to img-etl's requests. */
  imgEtlPageSize: number;
  /** Whether img-etl's page size was its default or set with the bench's --page-size. */
  imgEtlPageSizeFrom: 'default' | '--page-size';
  /** Page size of the floor and the peer. */
  clientPageSize: number;
}

/** What a scenario measured. */
export interface ScenarioResult {
  name: ScenarioName;
  load: LoadModel;
  /** How the runs fetched; absent when the scenario made no run of its own. */
  fetch?: ScenarioFetch;
  groups: RunGroup[];
  targets: TargetResult[];
  notes: string[];
  details?: Record<string, unknown>;
}

/** The CPU-bound, memory and size scenarios' service: no workers limit, no latency. */
export const NO_COST = { workers: 0, pageLatencyMs: 0, recordLatencyMs: 0 };

/** The fetch settings of every run of a scenario, the floor and the peer paging at `clientPageSize`. */
export function fetchSettings(o: BenchOptions, clientPageSize: number): FetchSettings {
  return { concurrency: o.concurrency, imgEtlPageSize: o.pageSize, clientPageSize, rusage: o.rusage };
}

/** The fetch settings as the results show them, with img-etl's page size as it asked for it and as applied. */
export function fetchOf(fetch: FetchSettings, plan: ImgEtlPlan): ScenarioFetch {
  return {
    concurrency: fetch.concurrency,
    imgEtlPageSizeRequested: plan.requested,
    imgEtlPageSize: plan.applied,
    imgEtlPageSizeFrom: fetch.imgEtlPageSize === undefined ? 'default' : '--page-size',
    clientPageSize: fetch.clientPageSize,
  };
}

/** The note that shows the pinning took effect: the cores the service process read it may use. */
export function pinNotes(ctx: BenchContext, serviceCpus: string): string[] {
  return ctx.pinning === undefined ? [] : [`the service process read its Cpus_allowed_list as ${serviceCpus}`];
}

/** Whether a run is img-etl's (to one of its formats). */
export function isImgEtl(run: RunKind): boolean {
  return (FORMATS as readonly string[]).includes(run);
}

/** A number with thousands separators. */
export function count(n: number): string {
  return n.toLocaleString('en-US');
}

/** A fraction as a signed percentage, e.g. `+15.6%`. */
export function pct(x: number): string {
  return `${x >= 0 ? '+' : ''}${(x * 100).toFixed(1)}%`;
}
