/**
 * The reference tools the benchmarks compare against (nginx, wrk, vipsthumbnail, calibredb) are
 * Debian packages; a benchmark installs the ones it needs when it starts, never the test suite.
 */

/** Installs the Debian package of every missing command (`command -> package`), as root via apt-get. */
export async function ensureDebianTools(packages: Record<string, string>): Promise<void> {
  const missing = Object.entries(packages).filter(([command]) => !Bun.which(command));
  if (missing.length === 0) return;
  const names = [...new Set(missing.map(([, name]) => name))];
  console.error(`installing ${names.join(", ")} (apt-get) for the reference measurements`);
  const env = { ...process.env, DEBIAN_FRONTEND: "noninteractive" };
  for (const command of [["apt-get", "update", "-qq"], ["apt-get", "install", "-y", "-qq", "--no-install-recommends", ...names]]) {
    const child = Bun.spawn(command, { env, stdout: "ignore", stderr: "inherit" });
    if ((await child.exited) !== 0) throw new Error(`${command.join(" ")} failed: install ${names.join(", ")} yourself`);
  }
}
