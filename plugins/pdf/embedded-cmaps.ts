/**
 * Every CMap file of pdfjs-dist/cmaps, embedded with `type: "file"` so that the compiled
 * binary carries them (pdf.js needs them to draw text in CJK fonts that are not embedded).
 * The list is complete by test (tests/formats/pdf-fixtures.test.ts compares it with the folder);
 * regenerate it when pdfjs-dist changes its CMaps.
 */
import c0 from "pdfjs-dist/cmaps/78-EUC-H.bcmap" with { type: "file" };
import c1 from "pdfjs-dist/cmaps/78-EUC-V.bcmap" with { type: "file" };
import c2 from "pdfjs-dist/cmaps/78-H.bcmap" with { type: "file" };
import c3 from "pdfjs-dist/cmaps/78-RKSJ-H.bcmap" with { type: "file" };
import c4 from "pdfjs-dist/cmaps/78-RKSJ-V.bcmap" with { type: "file" };
import c5 from "pdfjs-dist/cmaps/78-V.bcmap" with { type: "file" };
import c6 from "pdfjs-dist/cmaps/78ms-RKSJ-H.bcmap" with { type: "file" };
import c7 from "pdfjs-dist/cmaps/78ms-RKSJ-V.bcmap" with { type: "file" };
import c8 from "pdfjs-dist/cmaps/83pv-RKSJ-H.bcmap" with { type: "file" };
import c9 from "pdfjs-dist/cmaps/90ms-RKSJ-H.bcmap" with { type: "file" };
import c10 from "pdfjs-dist/cmaps/90ms-RKSJ-V.bcmap" with { type: "file" };
import c11 from "pdfjs-dist/cmaps/90msp-RKSJ-H.bcmap" with { type: "file" };
import c12 from "pdfjs-dist/cmaps/90msp-RKSJ-V.bcmap" with { type: "file" };
import c13 from "pdfjs-dist/cmaps/90pv-RKSJ-H.bcmap" with { type: "file" };
import c14 from "pdfjs-dist/cmaps/90pv-RKSJ-V.bcmap" with { type: "file" };
import c15 from "pdfjs-dist/cmaps/Add-H.bcmap" with { type: "file" };
import c16 from "pdfjs-dist/cmaps/Add-RKSJ-H.bcmap" with { type: "file" };
import c17 from "pdfjs-dist/cmaps/Add-RKSJ-V.bcmap" with { type: "file" };
import c18 from "pdfjs-dist/cmaps/Add-V.bcmap" with { type: "file" };
import c19 from "pdfjs-dist/cmaps/Adobe-CNS1-0.bcmap" with { type: "file" };
import c20 from "pdfjs-dist/cmaps/Adobe-CNS1-1.bcmap" with { type: "file" };
import c21 from "pdfjs-dist/cmaps/Adobe-CNS1-2.bcmap" with { type: "file" };
import c22 from "pdfjs-dist/cmaps/Adobe-CNS1-3.bcmap" with { type: "file" };
import c23 from "pdfjs-dist/cmaps/Adobe-CNS1-4.bcmap" with { type: "file" };
import c24 from "pdfjs-dist/cmaps/Adobe-CNS1-5.bcmap" with { type: "file" };
import c25 from "pdfjs-dist/cmaps/Adobe-CNS1-6.bcmap" with { type: "file" };
import c26 from "pdfjs-dist/cmaps/Adobe-CNS1-UCS2.bcmap" with { type: "file" };
import c27 from "pdfjs-dist/cmaps/Adobe-GB1-0.bcmap" with { type: "file" };
import c28 from "pdfjs-dist/cmaps/Adobe-GB1-1.bcmap" with { type: "file" };
import c29 from "pdfjs-dist/cmaps/Adobe-GB1-2.bcmap" with { type: "file" };
import c30 from "pdfjs-dist/cmaps/Adobe-GB1-3.bcmap" with { type: "file" };
import c31 from "pdfjs-dist/cmaps/Adobe-GB1-4.bcmap" with { type: "file" };
import c32 from "pdfjs-dist/cmaps/Adobe-GB1-5.bcmap" with { type: "file" };
import c33 from "pdfjs-dist/cmaps/Adobe-GB1-UCS2.bcmap" with { type: "file" };
import c34 from "pdfjs-dist/cmaps/Adobe-Japan1-0.bcmap" with { type: "file" };
import c35 from "pdfjs-dist/cmaps/Adobe-Japan1-1.bcmap" with { type: "file" };
import c36 from "pdfjs-dist/cmaps/Adobe-Japan1-2.bcmap" with { type: "file" };
import c37 from "pdfjs-dist/cmaps/Adobe-Japan1-3.bcmap" with { type: "file" };
import c38 from "pdfjs-dist/cmaps/Adobe-Japan1-4.bcmap" with { type: "file" };
import c39 from "pdfjs-dist/cmaps/Adobe-Japan1-5.bcmap" with { type: "file" };
import c40 from "pdfjs-dist/cmaps/Adobe-Japan1-6.bcmap" with { type: "file" };
import c41 from "pdfjs-dist/cmaps/Adobe-Japan1-UCS2.bcmap" with { type: "file" };
import c42 from "pdfjs-dist/cmaps/Adobe-Korea1-0.bcmap" with { type: "file" };
import c43 from "pdfjs-dist/cmaps/Adobe-Korea1-1.bcmap" with { type: "file" };
import c44 from "pdfjs-dist/cmaps/Adobe-Korea1-2.bcmap" with { type: "file" };
import c45 from "pdfjs-dist/cmaps/Adobe-Korea1-UCS2.bcmap" with { type: "file" };
import c46 from "pdfjs-dist/cmaps/B5-H.bcmap" with { type: "file" };
import c47 from "pdfjs-dist/cmaps/B5-V.bcmap" with { type: "file" };
import c48 from "pdfjs-dist/cmaps/B5pc-H.bcmap" with { type: "file" };
import c49 from "pdfjs-dist/cmaps/B5pc-V.bcmap" with { type: "file" };
import c50 from "pdfjs-dist/cmaps/CNS-EUC-H.bcmap" with { type: "file" };
import c51 from "pdfjs-dist/cmaps/CNS-EUC-V.bcmap" with { type: "file" };
import c52 from "pdfjs-dist/cmaps/CNS1-H.bcmap" with { type: "file" };
import c53 from "pdfjs-dist/cmaps/CNS1-V.bcmap" with { type: "file" };
import c54 from "pdfjs-dist/cmaps/CNS2-H.bcmap" with { type: "file" };
import c55 from "pdfjs-dist/cmaps/CNS2-V.bcmap" with { type: "file" };
import c56 from "pdfjs-dist/cmaps/ETHK-B5-H.bcmap" with { type: "file" };
import c57 from "pdfjs-dist/cmaps/ETHK-B5-V.bcmap" with { type: "file" };
import c58 from "pdfjs-dist/cmaps/ETen-B5-H.bcmap" with { type: "file" };
import c59 from "pdfjs-dist/cmaps/ETen-B5-V.bcmap" with { type: "file" };
import c60 from "pdfjs-dist/cmaps/ETenms-B5-H.bcmap" with { type: "file" };
import c61 from "pdfjs-dist/cmaps/ETenms-B5-V.bcmap" with { type: "file" };
import c62 from "pdfjs-dist/cmaps/EUC-H.bcmap" with { type: "file" };
import c63 from "pdfjs-dist/cmaps/EUC-V.bcmap" with { type: "file" };
import c64 from "pdfjs-dist/cmaps/Ext-H.bcmap" with { type: "file" };
import c65 from "pdfjs-dist/cmaps/Ext-RKSJ-H.bcmap" with { type: "file" };
import c66 from "pdfjs-dist/cmaps/Ext-RKSJ-V.bcmap" with { type: "file" };
import c67 from "pdfjs-dist/cmaps/Ext-V.bcmap" with { type: "file" };
import c68 from "pdfjs-dist/cmaps/GB-EUC-H.bcmap" with { type: "file" };
import c69 from "pdfjs-dist/cmaps/GB-EUC-V.bcmap" with { type: "file" };
import c70 from "pdfjs-dist/cmaps/GB-H.bcmap" with { type: "file" };
import c71 from "pdfjs-dist/cmaps/GB-V.bcmap" with { type: "file" };
import c72 from "pdfjs-dist/cmaps/GBK-EUC-H.bcmap" with { type: "file" };
import c73 from "pdfjs-dist/cmaps/GBK-EUC-V.bcmap" with { type: "file" };
import c74 from "pdfjs-dist/cmaps/GBK2K-H.bcmap" with { type: "file" };
import c75 from "pdfjs-dist/cmaps/GBK2K-V.bcmap" with { type: "file" };
import c76 from "pdfjs-dist/cmaps/GBKp-EUC-H.bcmap" with { type: "file" };
import c77 from "pdfjs-dist/cmaps/GBKp-EUC-V.bcmap" with { type: "file" };
import c78 from "pdfjs-dist/cmaps/GBT-EUC-H.bcmap" with { type: "file" };
import c79 from "pdfjs-dist/cmaps/GBT-EUC-V.bcmap" with { type: "file" };
import c80 from "pdfjs-dist/cmaps/GBT-H.bcmap" with { type: "file" };
import c81 from "pdfjs-dist/cmaps/GBT-V.bcmap" with { type: "file" };
import c82 from "pdfjs-dist/cmaps/GBTpc-EUC-H.bcmap" with { type: "file" };
import c83 from "pdfjs-dist/cmaps/GBTpc-EUC-V.bcmap" with { type: "file" };
import c84 from "pdfjs-dist/cmaps/GBpc-EUC-H.bcmap" with { type: "file" };
import c85 from "pdfjs-dist/cmaps/GBpc-EUC-V.bcmap" with { type: "file" };
import c86 from "pdfjs-dist/cmaps/H.bcmap" with { type: "file" };
import c87 from "pdfjs-dist/cmaps/HKdla-B5-H.bcmap" with { type: "file" };
import c88 from "pdfjs-dist/cmaps/HKdla-B5-V.bcmap" with { type: "file" };
import c89 from "pdfjs-dist/cmaps/HKdlb-B5-H.bcmap" with { type: "file" };
import c90 from "pdfjs-dist/cmaps/HKdlb-B5-V.bcmap" with { type: "file" };
import c91 from "pdfjs-dist/cmaps/HKgccs-B5-H.bcmap" with { type: "file" };
import c92 from "pdfjs-dist/cmaps/HKgccs-B5-V.bcmap" with { type: "file" };
import c93 from "pdfjs-dist/cmaps/HKm314-B5-H.bcmap" with { type: "file" };
import c94 from "pdfjs-dist/cmaps/HKm314-B5-V.bcmap" with { type: "file" };
import c95 from "pdfjs-dist/cmaps/HKm471-B5-H.bcmap" with { type: "file" };
import c96 from "pdfjs-dist/cmaps/HKm471-B5-V.bcmap" with { type: "file" };
import c97 from "pdfjs-dist/cmaps/HKscs-B5-H.bcmap" with { type: "file" };
import c98 from "pdfjs-dist/cmaps/HKscs-B5-V.bcmap" with { type: "file" };
import c99 from "pdfjs-dist/cmaps/Hankaku.bcmap" with { type: "file" };
import c100 from "pdfjs-dist/cmaps/Hiragana.bcmap" with { type: "file" };
import c101 from "pdfjs-dist/cmaps/KSC-EUC-H.bcmap" with { type: "file" };
import c102 from "pdfjs-dist/cmaps/KSC-EUC-V.bcmap" with { type: "file" };
import c103 from "pdfjs-dist/cmaps/KSC-H.bcmap" with { type: "file" };
import c104 from "pdfjs-dist/cmaps/KSC-Johab-H.bcmap" with { type: "file" };
import c105 from "pdfjs-dist/cmaps/KSC-Johab-V.bcmap" with { type: "file" };
import c106 from "pdfjs-dist/cmaps/KSC-V.bcmap" with { type: "file" };
import c107 from "pdfjs-dist/cmaps/KSCms-UHC-H.bcmap" with { type: "file" };
import c108 from "pdfjs-dist/cmaps/KSCms-UHC-HW-H.bcmap" with { type: "file" };
import c109 from "pdfjs-dist/cmaps/KSCms-UHC-HW-V.bcmap" with { type: "file" };
import c110 from "pdfjs-dist/cmaps/KSCms-UHC-V.bcmap" with { type: "file" };
import c111 from "pdfjs-dist/cmaps/KSCpc-EUC-H.bcmap" with { type: "file" };
import c112 from "pdfjs-dist/cmaps/KSCpc-EUC-V.bcmap" with { type: "file" };
import c113 from "pdfjs-dist/cmaps/Katakana.bcmap" with { type: "file" };
import c114 from "pdfjs-dist/cmaps/NWP-H.bcmap" with { type: "file" };
import c115 from "pdfjs-dist/cmaps/NWP-V.bcmap" with { type: "file" };
import c116 from "pdfjs-dist/cmaps/RKSJ-H.bcmap" with { type: "file" };
import c117 from "pdfjs-dist/cmaps/RKSJ-V.bcmap" with { type: "file" };
import c118 from "pdfjs-dist/cmaps/Roman.bcmap" with { type: "file" };
import c119 from "pdfjs-dist/cmaps/UniCNS-UCS2-H.bcmap" with { type: "file" };
import c120 from "pdfjs-dist/cmaps/UniCNS-UCS2-V.bcmap" with { type: "file" };
import c121 from "pdfjs-dist/cmaps/UniCNS-UTF16-H.bcmap" with { type: "file" };
import c122 from "pdfjs-dist/cmaps/UniCNS-UTF16-V.bcmap" with { type: "file" };
import c123 from "pdfjs-dist/cmaps/UniCNS-UTF32-H.bcmap" with { type: "file" };
import c124 from "pdfjs-dist/cmaps/UniCNS-UTF32-V.bcmap" with { type: "file" };
import c125 from "pdfjs-dist/cmaps/UniCNS-UTF8-H.bcmap" with { type: "file" };
import c126 from "pdfjs-dist/cmaps/UniCNS-UTF8-V.bcmap" with { type: "file" };
import c127 from "pdfjs-dist/cmaps/UniGB-UCS2-H.bcmap" with { type: "file" };
import c128 from "pdfjs-dist/cmaps/UniGB-UCS2-V.bcmap" with { type: "file" };
import c129 from "pdfjs-dist/cmaps/UniGB-UTF16-H.bcmap" with { type: "file" };
import c130 from "pdfjs-dist/cmaps/UniGB-UTF16-V.bcmap" with { type: "file" };
import c131 from "pdfjs-dist/cmaps/UniGB-UTF32-H.bcmap" with { type: "file" };
import c132 from "pdfjs-dist/cmaps/UniGB-UTF32-V.bcmap" with { type: "file" };
import c133 from "pdfjs-dist/cmaps/UniGB-UTF8-H.bcmap" with { type: "file" };
import c134 from "pdfjs-dist/cmaps/UniGB-UTF8-V.bcmap" with { type: "file" };
import c135 from "pdfjs-dist/cmaps/UniJIS-UCS2-H.bcmap" with { type: "file" };
import c136 from "pdfjs-dist/cmaps/UniJIS-UCS2-HW-H.bcmap" with { type: "file" };
import c137 from "pdfjs-dist/cmaps/UniJIS-UCS2-HW-V.bcmap" with { type: "file" };
import c138 from "pdfjs-dist/cmaps/UniJIS-UCS2-V.bcmap" with { type: "file" };
import c139 from "pdfjs-dist/cmaps/UniJIS-UTF16-H.bcmap" with { type: "file" };
import c140 from "pdfjs-dist/cmaps/UniJIS-UTF16-V.bcmap" with { type: "file" };
import c141 from "pdfjs-dist/cmaps/UniJIS-UTF32-H.bcmap" with { type: "file" };
import c142 from "pdfjs-dist/cmaps/UniJIS-UTF32-V.bcmap" with { type: "file" };
import c143 from "pdfjs-dist/cmaps/UniJIS-UTF8-H.bcmap" with { type: "file" };
import c144 from "pdfjs-dist/cmaps/UniJIS-UTF8-V.bcmap" with { type: "file" };
import c145 from "pdfjs-dist/cmaps/UniJIS2004-UTF16-H.bcmap" with { type: "file" };
import c146 from "pdfjs-dist/cmaps/UniJIS2004-UTF16-V.bcmap" with { type: "file" };
import c147 from "pdfjs-dist/cmaps/UniJIS2004-UTF32-H.bcmap" with { type: "file" };
import c148 from "pdfjs-dist/cmaps/UniJIS2004-UTF32-V.bcmap" with { type: "file" };
import c149 from "pdfjs-dist/cmaps/UniJIS2004-UTF8-H.bcmap" with { type: "file" };
import c150 from "pdfjs-dist/cmaps/UniJIS2004-UTF8-V.bcmap" with { type: "file" };
import c151 from "pdfjs-dist/cmaps/UniJISPro-UCS2-HW-V.bcmap" with { type: "file" };
import c152 from "pdfjs-dist/cmaps/UniJISPro-UCS2-V.bcmap" with { type: "file" };
import c153 from "pdfjs-dist/cmaps/UniJISPro-UTF8-V.bcmap" with { type: "file" };
import c154 from "pdfjs-dist/cmaps/UniJISX0213-UTF32-H.bcmap" with { type: "file" };
import c155 from "pdfjs-dist/cmaps/UniJISX0213-UTF32-V.bcmap" with { type: "file" };
import c156 from "pdfjs-dist/cmaps/UniJISX02132004-UTF32-H.bcmap" with { type: "file" };
import c157 from "pdfjs-dist/cmaps/UniJISX02132004-UTF32-V.bcmap" with { type: "file" };
import c158 from "pdfjs-dist/cmaps/UniKS-UCS2-H.bcmap" with { type: "file" };
import c159 from "pdfjs-dist/cmaps/UniKS-UCS2-V.bcmap" with { type: "file" };
import c160 from "pdfjs-dist/cmaps/UniKS-UTF16-H.bcmap" with { type: "file" };
import c161 from "pdfjs-dist/cmaps/UniKS-UTF16-V.bcmap" with { type: "file" };
import c162 from "pdfjs-dist/cmaps/UniKS-UTF32-H.bcmap" with { type: "file" };
import c163 from "pdfjs-dist/cmaps/UniKS-UTF32-V.bcmap" with { type: "file" };
import c164 from "pdfjs-dist/cmaps/UniKS-UTF8-H.bcmap" with { type: "file" };
import c165 from "pdfjs-dist/cmaps/UniKS-UTF8-V.bcmap" with { type: "file" };
import c166 from "pdfjs-dist/cmaps/V.bcmap" with { type: "file" };
import c167 from "pdfjs-dist/cmaps/WP-Symbol.bcmap" with { type: "file" };

/** CMap file name (as pdf.js asks for it) -> path of the embedded file. */
export const EMBEDDED_CMAPS: Readonly<Record<string, string>> = {
  "78-EUC-H.bcmap": c0,
  "78-EUC-V.bcmap": c1,
  "78-H.bcmap": c2,
  "78-RKSJ-H.bcmap": c3,
  "78-RKSJ-V.bcmap": c4,
  "78-V.bcmap": c5,
  "78ms-RKSJ-H.bcmap": c6,
  "78ms-RKSJ-V.bcmap": c7,
  "83pv-RKSJ-H.bcmap": c8,
  "90ms-RKSJ-H.bcmap": c9,
  "90ms-RKSJ-V.bcmap": c10,
  "90msp-RKSJ-H.bcmap": c11,
  "90msp-RKSJ-V.bcmap": c12,
  "90pv-RKSJ-H.bcmap": c13,
  "90pv-RKSJ-V.bcmap": c14,
  "Add-H.bcmap": c15,
  "Add-RKSJ-H.bcmap": c16,
  "Add-RKSJ-V.bcmap": c17,
  "Add-V.bcmap": c18,
  "Adobe-CNS1-0.bcmap": c19,
  "Adobe-CNS1-1.bcmap": c20,
  "Adobe-CNS1-2.bcmap": c21,
  "Adobe-CNS1-3.bcmap": c22,
  "Adobe-CNS1-4.bcmap": c23,
  "Adobe-CNS1-5.bcmap": c24,
  "Adobe-CNS1-6.bcmap": c25,
  "Adobe-CNS1-UCS2.bcmap": c26,
  "Adobe-GB1-0.bcmap": c27,
  "Adobe-GB1-1.bcmap": c28,
  "Adobe-GB1-2.bcmap": c29,
  "Adobe-GB1-3.bcmap": c30,
  "Adobe-GB1-4.bcmap": c31,
  "Adobe-GB1-5.bcmap": c32,
  "Adobe-GB1-UCS2.bcmap": c33,
  "Adobe-Japan1-0.bcmap": c34,
  "Adobe-Japan1-1.bcmap": c35,
  "Adobe-Japan1-2.bcmap": c36,
  "Adobe-Japan1-3.bcmap": c37,
  "Adobe-Japan1-4.bcmap": c38,
  "Adobe-Japan1-5.bcmap": c39,
  "Adobe-Japan1-6.bcmap": c40,
  "Adobe-Japan1-UCS2.bcmap": c41,
  "Adobe-Korea1-0.bcmap": c42,
  "Adobe-Korea1-1.bcmap": c43,
  "Adobe-Korea1-2.bcmap": c44,
  "Adobe-Korea1-UCS2.bcmap": c45,
  "B5-H.bcmap": c46,
  "B5-V.bcmap": c47,
  "B5pc-H.bcmap": c48,
  "B5pc-V.bcmap": c49,
  "CNS-EUC-H.bcmap": c50,
  "CNS-EUC-V.bcmap": c51,
  "CNS1-H.bcmap": c52,
  "CNS1-V.bcmap": c53,
  "CNS2-H.bcmap": c54,
  "CNS2-V.bcmap": c55,
  "ETHK-B5-H.bcmap": c56,
  "ETHK-B5-V.bcmap": c57,
  "ETen-B5-H.bcmap": c58,
  "ETen-B5-V.bcmap": c59,
  "ETenms-B5-H.bcmap": c60,
  "ETenms-B5-V.bcmap": c61,
  "EUC-H.bcmap": c62,
  "EUC-V.bcmap": c63,
  "Ext-H.bcmap": c64,
  "Ext-RKSJ-H.bcmap": c65,
  "Ext-RKSJ-V.bcmap": c66,
  "Ext-V.bcmap": c67,
  "GB-EUC-H.bcmap": c68,
  "GB-EUC-V.bcmap": c69,
  "GB-H.bcmap": c70,
  "GB-V.bcmap": c71,
  "GBK-EUC-H.bcmap": c72,
  "GBK-EUC-V.bcmap": c73,
  "GBK2K-H.bcmap": c74,
  "GBK2K-V.bcmap": c75,
  "GBKp-EUC-H.bcmap": c76,
  "GBKp-EUC-V.bcmap": c77,
  "GBT-EUC-H.bcmap": c78,
  "GBT-EUC-V.bcmap": c79,
  "GBT-H.bcmap": c80,
  "GBT-V.bcmap": c81,
  "GBTpc-EUC-H.bcmap": c82,
  "GBTpc-EUC-V.bcmap": c83,
  "GBpc-EUC-H.bcmap": c84,
  "GBpc-EUC-V.bcmap": c85,
  "H.bcmap": c86,
  "HKdla-B5-H.bcmap": c87,
  "HKdla-B5-V.bcmap": c88,
  "HKdlb-B5-H.bcmap": c89,
  "HKdlb-B5-V.bcmap": c90,
  "HKgccs-B5-H.bcmap": c91,
  "HKgccs-B5-V.bcmap": c92,
  "HKm314-B5-H.bcmap": c93,
  "HKm314-B5-V.bcmap": c94,
  "HKm471-B5-H.bcmap": c95,
  "HKm471-B5-V.bcmap": c96,
  "HKscs-B5-H.bcmap": c97,
  "HKscs-B5-V.bcmap": c98,
  "Hankaku.bcmap": c99,
  "Hiragana.bcmap": c100,
  "KSC-EUC-H.bcmap": c101,
  "KSC-EUC-V.bcmap": c102,
  "KSC-H.bcmap": c103,
  "KSC-Johab-H.bcmap": c104,
  "KSC-Johab-V.bcmap": c105,
  "KSC-V.bcmap": c106,
  "KSCms-UHC-H.bcmap": c107,
  "KSCms-UHC-HW-H.bcmap": c108,
  "KSCms-UHC-HW-V.bcmap": c109,
  "KSCms-UHC-V.bcmap": c110,
  "KSCpc-EUC-H.bcmap": c111,
  "KSCpc-EUC-V.bcmap": c112,
  "Katakana.bcmap": c113,
  "NWP-H.bcmap": c114,
  "NWP-V.bcmap": c115,
  "RKSJ-H.bcmap": c116,
  "RKSJ-V.bcmap": c117,
  "Roman.bcmap": c118,
  "UniCNS-UCS2-H.bcmap": c119,
  "UniCNS-UCS2-V.bcmap": c120,
  "UniCNS-UTF16-H.bcmap": c121,
  "UniCNS-UTF16-V.bcmap": c122,
  "UniCNS-UTF32-H.bcmap": c123,
  "UniCNS-UTF32-V.bcmap": c124,
  "UniCNS-UTF8-H.bcmap": c125,
  "UniCNS-UTF8-V.bcmap": c126,
  "UniGB-UCS2-H.bcmap": c127,
  "UniGB-UCS2-V.bcmap": c128,
  "UniGB-UTF16-H.bcmap": c129,
  "UniGB-UTF16-V.bcmap": c130,
  "UniGB-UTF32-H.bcmap": c131,
  "UniGB-UTF32-V.bcmap": c132,
  "UniGB-UTF8-H.bcmap": c133,
  "UniGB-UTF8-V.bcmap": c134,
  "UniJIS-UCS2-H.bcmap": c135,
  "UniJIS-UCS2-HW-H.bcmap": c136,
  "UniJIS-UCS2-HW-V.bcmap": c137,
  "UniJIS-UCS2-V.bcmap": c138,
  "UniJIS-UTF16-H.bcmap": c139,
  "UniJIS-UTF16-V.bcmap": c140,
  "UniJIS-UTF32-H.bcmap": c141,
  "UniJIS-UTF32-V.bcmap": c142,
  "UniJIS-UTF8-H.bcmap": c143,
  "UniJIS-UTF8-V.bcmap": c144,
  "UniJIS2004-UTF16-H.bcmap": c145,
  "UniJIS2004-UTF16-V.bcmap": c146,
  "UniJIS2004-UTF32-H.bcmap": c147,
  "UniJIS2004-UTF32-V.bcmap": c148,
  "UniJIS2004-UTF8-H.bcmap": c149,
  "UniJIS2004-UTF8-V.bcmap": c150,
  "UniJISPro-UCS2-HW-V.bcmap": c151,
  "UniJISPro-UCS2-V.bcmap": c152,
  "UniJISPro-UTF8-V.bcmap": c153,
  "UniJISX0213-UTF32-H.bcmap": c154,
  "UniJISX0213-UTF32-V.bcmap": c155,
  "UniJISX02132004-UTF32-H.bcmap": c156,
  "UniJISX02132004-UTF32-V.bcmap": c157,
  "UniKS-UCS2-H.bcmap": c158,
  "UniKS-UCS2-V.bcmap": c159,
  "UniKS-UTF16-H.bcmap": c160,
  "UniKS-UTF16-V.bcmap": c161,
  "UniKS-UTF32-H.bcmap": c162,
  "UniKS-UTF32-V.bcmap": c163,
  "UniKS-UTF8-H.bcmap": c164,
  "UniKS-UTF8-V.bcmap": c165,
  "V.bcmap": c166,
  "WP-Symbol.bcmap": c167,
};
