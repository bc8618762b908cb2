/**
 * The parts of parquetjs-lite's public API (CommonJS, untyped) that the 'parquetjs' engine uses.
 */
declare module 'parquetjs-lite' {
  /** A column of a parquetjs-lite schema definition. */
  interface FieldDefinition {
    type: string;
    optional?: boolean;
    compression?: string;
    encoding?: string;
    statistics?: boolean;
  }
  /** A built schema. */
  class ParquetSchema {
    constructor(definition: Record<string, FieldDefinition>);
  }
  /** Where a writer sends bytes: a Node-style writable. */
  interface OutputStream {
    write(chunk: Buffer, callback: (error?: Error | null) => void): void;
    end(callback: (error?: Error | null) => void): void;
  }
  /** The row writer. */
  class ParquetWriter {
    static openStream(
      schema: ParquetSchema,
      stream: OutputStream,
      options?: { rowGroupSize?: number; useDataPageV2?: boolean; pageIndex?: boolean },
    ): Promise<ParquetWriter>;
    appendRow(row: Record<string, unknown>): Promise<void>;
    setMetadata(key: string, value: string): void;
    close(): Promise<void>;
  }
  const parquet: { ParquetSchema: typeof ParquetSchema; ParquetWriter: typeof ParquetWriter };
  export type { FieldDefinition, OutputStream };
  export { ParquetSchema, ParquetWriter };
  export default parquet;
}
