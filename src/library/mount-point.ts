/**
 * Whether a library folder is a mount point right now, so that a share that was mounted at the
 * last scan and is not any more is noticed even when the folder under it is not empty (the
 * suspicious-scan guard in ./scanner.ts). Two signs, either is enough: the folder's device
 * differs from its parent's (NFS, SMB, a disk), or, on Linux, /proc/self/mountinfo lists the
 * folder as a mount point (a bind mount keeps its parent's device).
 */
import { readFile, realpath, stat } from "node:fs/promises";
import { dirname } from "node:path";

export async function isMountPoint(folder: string): Promise<boolean> {
  let real: string;
  try {
    real = await realpath(folder);
    const [own, parent] = await Promise.all([stat(real), stat(dirname(real))]);
    if (own.dev !== parent.dev) return true;
  } catch {
    return false; // unreadable: the scan reports that on its own
  }
  return (await mountPoints()).has(real);
}

/** Mount points listed by the kernel (field 5 of mountinfo, octal escapes undone); empty elsewhere. */
async function mountPoints(): Promise<Set<string>> {
  let text: string;
  try {
    text = await readFile("/proc/self/mountinfo", "utf8");
  } catch {
    return new Set();
  }
  const unescape = (field: string) => field.replace(/\\([0-7]{3})/g, (_, octal: string) => String.fromCharCode(parseInt(octal, 8)));
  return new Set(text.split("\n").flatMap((line) => {
    const field = line.split(" ")[4];
    return field ? [unescape(field)] : [];
  }));
}
