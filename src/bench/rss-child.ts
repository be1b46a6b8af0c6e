/**
 * Runs the CLI (`node .bench/bench/rss-child.js scan …`) and reports its peak resident set size on
 * stderr as it exits (`maxrss=<KiB>`), for the scan memory benchmark.
 */
process.on('exit', () => {
  process.stderr.write(`\nmaxrss=${process.resourceUsage().maxRSS}\n`);
});
await import('../cli/main.js');
