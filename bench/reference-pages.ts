/** Page images and the references that page-serving benchmarks compare Longbox with: nginx and the bare Bun.serve floor. */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import sharp from "sharp";

/** nginx serving one folder on a free port, as a reference for static bytes. */
export async function startNginx(root: string): Promise<{ url: string; pid: number; stop(): Promise<void> }> {
  const probe = Bun.serve({ port: 0, fetch: () => new Response() });
  const port = probe.port;
  probe.stop(true);
  const conf = join(root, "nginx.conf");
  writeFileSync(
    conf,
    `worker_processes 2; daemon off; pid ${root}/nginx.pid; error_log ${root}/error.log;
events { worker_connections 1024; }
http { access_log off; sendfile on; tcp_nopush on; server { listen 127.0.0.1:${port}; root ${root}/www; } }`,
  );
  const child = Bun.spawn(["nginx", "-c", conf, "-p", root], { stdout: "ignore", stderr: "inherit" });
  for (let attempt = 0; attempt < 100; attempt++) {
    if ((await fetch(`http://127.0.0.1:${port}/`).catch(() => undefined)) !== undefined) break;
    await Bun.sleep(20);
  }
  return {
    url: `http://127.0.0.1:${port}`,
    pid: child.pid,
    stop: async () => {
      child.kill("SIGQUIT");
      await child.exited;
    },
  };
}

/** The bare Bun.serve floor (./bun-floor.ts) over `root`, in a process of its own; `confine`: with Longbox's file checks. */
export async function startBunFloor(root: string, options: { confine?: boolean } = {}): Promise<{ url: string; pid: number; stop(): Promise<void> }> {
  const args = [process.execPath, join(import.meta.dir, "bun-floor.ts"), root, ...(options.confine ? ["--confine"] : [])];
  const child = Bun.spawn(args, { stdout: "pipe", stderr: "inherit" });
  const reader = child.stdout.getReader();
  let output = "";
  while (!output.includes("\n")) {
    const { value, done } = await reader.read();
    if (done) throw new Error("the Bun.serve floor did not start");
    output += new TextDecoder().decode(value);
  }
  reader.releaseLock();
  return {
    url: output.trim().replace(/\/$/, ""),
    pid: child.pid,
    stop: async () => {
      child.kill();
      await child.exited;
    },
  };
}

/** A noisy JPEG (noise compresses badly) of about `kilobytes` KB: one guess, then one correction by area. */
export async function noisyPage(kilobytes: number, seed = 0): Promise<Uint8Array> {
  const make = async (width: number) => {
    const height = Math.round(width * 1.5);
    const image = sharp({ create: { width, height, channels: 3, background: "#808080", noise: { type: "gaussian", mean: 128 + seed, sigma: 40 } } });
    return new Uint8Array(await image.jpeg({ quality: 80 }).toBuffer());
  };
  const first = await make(1000);
  return make(Math.round(1000 * Math.sqrt((kilobytes * 1000) / first.length)));
}

