/** keyhole's version, as `--version` prints it and the exports name their tool. */
export const KEYHOLE_VERSION = '0.1.0';
