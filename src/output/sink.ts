/** Where output text goes: a terminal, a pipe, a file or memory. */
export interface TextSink {
  write(text: string): void;
  /** True when the sink is an interactive terminal (colour, progress bars). */
  readonly isTTY: boolean;
}
