import { join } from "node:path";
import { mkdirSync, writeFileSync } from "node:fs";
import { zipSync } from "fflate";
import sharp from "sharp";
import { startTestServer } from "/work/main/tests/helpers/server";
import { adminSession } from "/work/main/tests/auth/support/auth";
import { createLibrary, scan, tempFolder } from "/work/main/tests/helpers/library";
const kind = (process.argv[2] ?? "sqlite") as "sqlite" | "postgres";
const N = Number(process.argv[3] ?? 10000);
const s = await startTestServer(kind, { logging: { level: "warn" } });
const { token } = await adminSession(s);
const h = { authorization: `Bearer ${token}` };
const root = tempFolder();
const small = new Uint8Array(await sharp({ create: { width: 60, height: 90, channels: 3, background: "#335577" } }).jpeg().toBuffer());
for (let i = 0; i < N; i++) {
  const series = `Series ${String(i % 100).padStart(3, "0")}`;
  mkdirSync(join(root, series), { recursive: true });
  writeFileSync(join(root, series, `${series} #${String(Math.floor(i / 100) + 1).padStart(3, "0")}.cbz`), zipSync({ "id.txt": new TextEncoder().encode(String(i)), "001.jpg": small }, { level: 0 }));
}
const lib = await createLibrary(s, h, { path: root });
await scan(s, h, lib.id);
const { body: sp } = await s.json("GET", "/api/v1/series?pageSize=1", undefined, h);
const paths = process.argv[4] ? [] : ["/api/v1/books?pageSize=50", "/api/v1/books?pageSize=50&page=150", "/api/v1/books?q=series%20042&pageSize=50", "/api/v1/series?pageSize=50", `/api/v1/series/${sp.data[0].id}/books?pageSize=50`, "/api/v1/libraries"];
for (const p of paths) {
  const t: number[] = [];
  for (let i = 0; i < 40; i++) { const a = performance.now(); const r = await s.fetch(p, { headers: h }); await r.arrayBuffer(); t.push(performance.now() - a); }
  t.sort((a, b) => a - b);
  console.log(p.padEnd(60), "p50", t[20]!.toFixed(1), "max", t[39]!.toFixed(1));
}
import { rawQuery } from "/work/main/tests/helpers/sql";
for (const q of [
  "EXPLAIN ANALYZE SELECT b.id FROM books b JOIN series s ON s.id=b.series_id WHERE b.deleted=false ORDER BY s.name_sort collate \"C\", (b.number_sort is null), b.number_sort, lower(b.title) collate \"C\", b.id LIMIT 50 OFFSET 7450",
  "EXPLAIN ANALYZE SELECT b.id FROM books b WHERE b.deleted=false ORDER BY b.id LIMIT 50 OFFSET 7450",
  "EXPLAIN ANALYZE SELECT count(*) FROM books b WHERE b.deleted=false",
]) { const rows = await rawQuery(s, q); console.log(rows.map(r => Object.values(r)[0]).join("\n")); }
await s.stop();
