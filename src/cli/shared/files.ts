import { stat } from 'node:fs/promises';

/** True when `path` is a file (not a folder, not missing). */
export async function isFile(path: string): Promise<boolean> {
  return stat(path).then(
    (info) => info.isFile(),
    () => false,
  );
}

/** The `--name` of what a command stores from a file (an import, an asset list) when none is given. */
export function nameOfFile(file: string): string {
  return file.split(/[\\/]/).at(-1) || file;
}
