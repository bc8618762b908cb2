/** Numbers, durations and sizes written for people in the summary and progress lines. */

/** A whole number with thousands separators, whatever the locale: `12,345`. */
export function thousands(n: number): string {
  return String(Math.round(n)).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

/** A count with its noun, singular for 1: `1 page`, `1,000 pages`, `2 passes` (the plural given where it is not +s). */
export function counted(n: number, one: string, many = `${one}s`): string {
  return `${thousands(n)} ${n === 1 ? one : many}`;
}

/** A duration for people, rounded up to the second: `42 s`, `3 min 05 s`, `1 h 02 min`. */
export function formatDuration(seconds: number): string {
  const s = Math.ceil(seconds);
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min ${String(s % 60).padStart(2, '0')} s`;
  return `${Math.floor(s / 3600)} h ${String(Math.floor((s % 3600) / 60)).padStart(2, '0')} min`;
}

/** Bytes as a short size in SI units: `812 B`, `12.3 MB` (999,960 bytes are `1.0 MB`, never `1000.0 kB`). */
export function formatBytes(bytes: number): string {
  const units = ['B', 'kB', 'MB', 'GB', 'TB'];
  let value = bytes;
  let unit = 0;
  const shown = () => (unit === 0 ? String(Math.round(value)) : value.toFixed(1));
  while (Number(shown()) >= 1000 && unit < units.length - 1) {
    value /= 1000;
    unit++;
  }
  return `${shown()} ${units[unit]}`;
}
