/**
 * The parts of parquetjs-lite (CommonJS, untyped) that the 'parquetjs' engine and the footer check use.
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
  /** A leaf field of a built schema. */
  interface ParquetField {
    name: string;
    primitiveType: string;
    originalType?: string;
    repetitionType: string;
  }
  /** A built schema. */
  class ParquetSchema {
    constructor(definition: Record<string, FieldDefinition>);
    fieldList: ParquetField[];
  }
  /** Where a writer sends bytes: a Node-style writable. */
  interface OutputStream {
    write(chunk: Buffer, callback: (error?: Error | null) => void): void;
    end(callback: (error?: Error | null) => void): void;
  }
  /** The low-level writer that frames row groups and the footer. */
  interface ParquetEnvelopeWriter {
    rowCount: number;
    rowGroups: unknown[];
    writeSection(buffer: Buffer): Promise<void>;
    writeFooter(userMetadata: Record<string, string>): Promise<void>;
  }
  /** The row writer. */
  class ParquetWriter {
    static openStream(schema: ParquetSchema, stream: OutputStream, options?: { rowGroupSize?: number; useDataPageV2?: boolean; pageIndex?: boolean }): Promise<ParquetWriter>;
    envelopeWriter: ParquetEnvelopeWriter;
    appendRow(row: Record<string, unknown>): Promise<void>;
    setMetadata(key: string, value: string): void;
    close(): Promise<void>;
  }
  const parquet: { ParquetSchema: typeof ParquetSchema; ParquetWriter: typeof ParquetWriter };
  export type { FieldDefinition, ParquetField, OutputStream, ParquetEnvelopeWriter };
  export { ParquetSchema, ParquetWriter };
  export default parquet;
}

declare module 'parquetjs-lite/lib/util.js' {
  const util: {
    /** Encodes a thrift struct with the compact protocol. */
    serializeThrift(struct: unknown): Buffer;
    /** Decodes a thrift struct from `buffer` into `struct`; returns the bytes read. */
    decodeThrift(struct: unknown, buffer: Buffer, offset?: number): number;
  };
  export default util;
}

declare module 'parquetjs-lite/gen-nodejs/parquet_types.js' {
  type Struct = new (args?: Record<string, unknown>) => Record<string, any>;
  const types: {
    FileMetaData: Struct;
    SchemaElement: Struct;
    KeyValue: Struct;
    LogicalType: Struct;
    TimestampType: Struct;
    TimeUnit: Struct;
    MicroSeconds: Struct;
    StringType: Struct;
    Type: Record<string, number>;
    ConvertedType: Record<string, number>;
    FieldRepetitionType: Record<string, number>;
  };
  export default types;
}
