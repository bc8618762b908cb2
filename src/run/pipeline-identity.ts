/** Which pipeline a run writes: its name and the sha256 of its file (or of its definition: pipeline-run-options.ts). */
export interface PipelineIdentity {
  name: string;
  sha256: string;
}
