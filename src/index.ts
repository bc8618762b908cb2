/** img-etl's public library: the stages, the sinks, the schema, the runner and the bundled service. */

// schema: the one source of truth
export { COLUMNS, IMAGES, KNOWN_KEYS, RECORD_COLUMNS, SCHEMA_VERSION } from './schema/columns.js';
export { COLLECTION_COLUMNS, COLLECTIONS } from './schema/collection-columns.js';
export { defineTable, type Table, type TableDefinition, type TableDiffFiles, type TableFiles } from './schema/table.js';
export type { Column, ColumnOrigin } from './schema/column-type.js';
export { derivedColumn } from './schema/derived-column.js';
export { withColumns } from './schema/with-columns.js';
export { boolean } from './schema/column-types/boolean.js';
export { category } from './schema/column-types/category.js';
export { float64 } from './schema/column-types/float64.js';
export { int64 } from './schema/column-types/int64.js';
export { json } from './schema/column-types/json.js';
export { string } from './schema/column-types/string.js';
export { timestamp } from './schema/column-types/timestamp.js';
export type { ArrowEncoder, ArrowModule, ColumnKind, ColumnType, ZodModule } from './schema/column-type.js';
export { ImageSchema, PageSchema, imageIssues, recordIssues, recordSchema } from './schema/image-schema.js';
export type { Page } from './schema/image-schema.js';
export type { RecordIssue } from './schema/record-issue.js';
export type { PageBatch, PageRef, Reject, Row, RowBatch, RowValue } from './schema/row.js';
export { formatTimestampMicros, parseTimestampMicros } from './schema/timestamp.js';
export { schemaTableMarkdown } from './schema/schema-table.js';

// extract
export { paginate, newExtractStats, type ExtractStats, type PaginateOptions } from './extract/paging/paginate.js';
export { ExtractError, type ExtractErrorCode, type ExtractErrorOptions } from './extract/paging/extract-error.js';
export type * from './extract/paging/extract-events.js';
export type * from './run/run-events.js';
export {
  HttpClient,
  type FetchedJson,
  type FetchedPage,
  type HttpClientOptions,
} from './extract/paging/http-client.js';
export { fetchImage, type FetchedImage, type FetchImageOptions } from './extract/paging/fetch-image.js';
export { redactUrl } from './extract/paging/redact-url.js';
export { collect, type Collected, type PassSummary, type RequestCounts } from './extract/completeness/collect.js';
export type { Completeness, ReconciledCollection } from './extract/completeness/completeness.js';
export type { CollectionsListing } from './extract/completeness/page-collections.js';
export { replayCollections, type ReplayCollectionsOptions } from './extract/completeness/replay-collections.js';
export { Checkpoint } from './extract/staging/checkpoint.js';
export { CheckpointError } from './extract/staging/checkpoint-error.js';
export type { JournalEntry } from './extract/staging/journal.js';
export type { CheckpointIdentity } from './extract/staging/staging-identity.js';
export { withRetry, type RetryOptions } from './extract/paging/retry.js';

// transform
export { validate, type ValidBatch } from './transform/validate.js';
export { normalise } from './transform/normalise.js';
export { emptyNormalisationCounts, type NormalisationCounts } from './schema/normalisation-counts.js';
export { dedupe, type DedupeCounts } from './transform/dedupe.js';
export { filterRows, type RowStage } from './transform/filter-rows.js';

// load
export { toArrowBatches, type LoadBatch } from './load/arrow/arrow-batches.js';
export { arrowSchema } from './load/arrow/arrow-schema.js';
export { toParquet, type ParquetEngine, type ParquetSinkOptions } from './load/parquet/to-parquet.js';
export { toArrow, type ArrowSinkOptions } from './load/arrow/to-arrow.js';
export { toCsv, type CsvEngine, type CsvSinkOptions } from './load/csv/to-csv.js';
export { toRejects, type RejectsResult, type RejectsSinkOptions } from './load/to-rejects.js';
export { tee } from './load/tee.js';
export { LoadError, type LoadErrorCode, type LoadErrorOptions } from './text/load-error.js';
export type { SinkResult } from './load/sink-result.js';

// run: the whole job
export { runSnapshot, STAGING_DIR, type SnapshotOptions, type SnapshotResult } from './run/run-snapshot.js';
export { listSnapshots, snapshotName } from './snapshot/snapshot-names.js';
export { publishLatest, pruneSnapshots } from './run/publish/snapshot-folders.js';
export { FILE_NAMES, FORMATS, TABLES, type Format } from './snapshot/formats.js';
export type { Manifest, ManifestCollections, ManifestFile, ManifestNormalisation } from './run/publish/manifest.js';
export { definePipeline, pipelineTable, type Pipeline, type PipelineIdentity } from './run/pipeline.js';
export { runPipeline } from './run/run-pipeline.js';
export { pipelineRunOptions, type PipelineRunOptions } from './run/pipeline-run-options.js';
export { writeOutputs, type StreamTap, type WriteOutputsOptions } from './run/write/write-outputs.js';
export type { OpenRunTap, RunTap, RunTapContext } from './run/run-tap.js';
export { snapshotIndexTap } from './run/index/snapshot-index-tap.js';
export { rowSink } from './run/row-sink.js';
export { writeTable, type TableOutput, type WriteTableOptions } from './run/write/write-table.js';
export { writeCollections } from './run/write/write-collections.js';

// diff of two snapshots
export {
  diffSnapshots,
  SnapshotDiff,
  type DiffChange,
  type DiffEntry,
  type DiffOptions,
  type DiffTotals,
} from './diff/diff-snapshots.js';
export type { DiffSide } from './diff/diff-side.js';
export { readSnapshotRows, type ReadSnapshotOptions, type SnapshotRows } from './snapshot/read-snapshot-rows.js';
export { writeDiff, DIFF_FILE_NAMES, DIFF_FORMATS, type DiffFormat, type WriteDiffOptions } from './diff/write-diff.js';
export { DiffError, type DiffErrorCode, type DiffErrorOptions } from './snapshot/diff-error.js';

// the report of a snapshot
export { ReportStats } from './report/report-stats.js';
export { reportTap } from './report/report-tap.js';
export { buildReport, type ReportInputs } from './report/build-report.js';
export { reportSnapshot, type ReportSnapshotOptions, type SnapshotReport } from './report/report-snapshot.js';
export { renderReportHtml, REPORT_DATA_ID } from './report/render-report-html.js';
export { loadSql } from './report/load-sql.js';
export { loadPy } from './report/load-py.js';
export type { ReportData } from './report/report-data.js';

// the image files a snapshot selects
export {
  fetchFiles,
  planFiles,
  type FetchFilesOptions,
  type FilesPlan,
  type FilesResult,
} from './files/fetch-files.js';
export { parseWhere, matchesWhere, type WhereCondition, type ConditionValue } from './files/where-condition.js';
export { FILE_STATUSES, type FileRow, type FileStatus } from './files/file-status.js';
export { FilesError, type FilesErrorCode } from './files/files-error.js';
export type { FilesEvent } from './files/files-events.js';
export { EXTRA_LINKS, type ExtraLinkGroup } from './files/extra-links.js';

// the bundled Image Listing Service
export {
  startService,
  type RunningService,
  type ServiceOptions,
  type FaultOptions,
  type FaultKind,
  type PlantedEffect,
} from './service/index.js';

// the node flags the img-etl command runs with (give them to your own node for the same memory profile)
export { NODE_FLAGS } from './cli/node-flags.js';
