#!/usr/bin/env python3
"""Exports server CPU entries from the quattor hardware template library
(github:quattor/template-library-standard, Apache 2.0; one `hardware/cpu/<vendor>/<model>.pan`
file per CPU with cores, threads and TDP) for Kraftwerk's catalog.

Writes catalog/cpus-quattor.ron: EPYC 7002/7003 (SP3), 9004/9005 (SP5) and 4004 (AM5), Xeon E5
v3/v4 (LGA2011-3), 2nd-gen Xeon Scalable (Cascade Lake, LGA3647), 3rd-gen (Ice Lake, LGA4189)
and 4th-gen (Sapphire Rapids, LGA4677). Cores, threads and TDP come from the template; the
template has no PCIe lanes, memory channels or memory type, so those are the platform's figures
from the vendor platform specification or a review quoting it (said per entry, marked derived).
Parts the curated catalog/cpus.ron or the OpenDB import (catalog/opendb/cpus.json) already has
are left out (an existing id equal to, or starting with, the generated id).

Usage: python3 xtask/quattor_cpus.py --git-dir <bare copy of template-library-standard> --commit <40-hex>
The same commit gives byte-identical output (sorted, no timestamps).
"""
import argparse
import json
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
REPO = "https://github.com/quattor/template-library-standard"

ROME = "https://www.servethehome.com/amd-epyc-7002-series-rome-delivers-a-knockout/4/"
MILAN = "https://www.anandtech.com/show/16529/amd-epyc-milan-review/2"
GENOA = "https://en.wikichip.org/wiki/amd/cores/genoa"
TURIN = "https://www.amd.com/en/products/processors/server/epyc/9005-series.html"
ICX = "https://www.microway.com/knowledge-center-articles/detailed-specifications-of-the-ice-lake-sp-intel-xeon-processor-scalable-family-cpus/"
SPR = "https://www.tweaktown.com/news/78666/intels-new-sapphire-rapids-cpu-pcie-5-0-tech-64gb-of-hbm2e-memory/index.html"
E5 = "https://www.intel.com/content/www/us/en/products/sku/91755/intel-xeon-processor-e52680-v4-35m-cache-2-40-ghz/specifications.html"

# (quattor type, first model digit) -> (socket, (gen5, gen4, gen3), memory type, channels,
#  max memory GB or None, why)
PLATFORMS = {
    ("zen2", "7"): ("SP3", (0, 128, 0), "Ddr4Rdimm", 8, 4096,
                    f"EPYC 7002 (Rome) on SP3: 128 PCIe 4.0 lanes in a 1P system (a 2P system gives 64 of each socket's lanes to the socket link), 8 channels DDR4-3200, 4 TB per socket (ServeTheHome launch review {ROME})"),
    ("zen3", "7"): ("SP3", (0, 128, 0), "Ddr4Rdimm", 8, 4096,
                    f"EPYC 7003 (Milan) on SP3: 128 PCIe 4.0 lanes in a 1P system, 8 channels DDR4-3200 RDIMM/LRDIMM, 4 TB with 2 DIMMs per channel (AnandTech Milan review {MILAN})"),
    ("zen4", "9"): ("SP5", (128, 0, 0), "Ddr5Rdimm", 12, None,
                    f"EPYC 9004 (Genoa/Bergamo/Genoa-X) on SP5: 128 PCIe 5.0 lanes in a 1P system (no chipset), 12 channels DDR5-4800 (WikiChip {GENOA}); max memory left unknown"),
    ("zen5", "9"): ("SP5", (128, 0, 0), "Ddr5Rdimm", 12, None,
                    f"EPYC 9005 (Turin) on SP5, the socket of the 9004: 128 PCIe 5.0 lanes in a 1P system, 12 channels DDR5 (AMD 9005 series page {TURIN}, UNCONFIRMED: not re-read for this import); max memory left unknown"),
    ("zen4", "4"): ("AM5", (24, 0, 0), "Ddr5Udimm", 2, None,
                    "EPYC 4004 on AM5: 24 usable PCIe 5.0 CPU lanes (4 more link the chipset), 2 channels DDR5, as curated for the Ryzen 9 7950X (AMD product page)"),
    ("haswell", "E5"): ("LGA2011-3", (0, 0, 40), "Ddr4Rdimm", 4, None,
                        f"Xeon E5-1600/2600 v3 on LGA2011-3: 40 PCIe 3.0 lanes and 4 DDR4 channels per socket (Intel ARK, e.g. {E5})"),
    ("broadwell", "E5"): ("LGA2011-3", (0, 0, 40), "Ddr4Rdimm", 4, None,
                          f"Xeon E5-1600/2600 v4 on LGA2011-3: 40 PCIe 3.0 lanes and 4 DDR4 channels per socket (Intel ARK {E5})"),
    ("cascade lake", "S"): ("LGA3647", (0, 0, 48), "Ddr4Rdimm", 6, None,
                            f"2nd-gen Xeon Scalable (Cascade Lake) on LGA3647: 48 PCIe 3.0 lanes and 6 DDR4 channels per socket (Microway, Ice Lake-SP article: 64 lanes 'up from 48', eight channels 'up from six', {ICX})"),
    ("ice lake", "S"): ("LGA4189", (0, 64, 0), "Ddr4Rdimm", 8, None,
                        f"3rd-gen Xeon Scalable (Ice Lake-SP) on LGA4189: 64 PCIe 4.0 lanes and 8 channels DDR4-3200 per socket, all models (Microway {ICX})"),
    ("sapphire rapids", "S"): ("LGA4677", (80, 0, 0), "Ddr5Rdimm", 8, None,
                               f"4th-gen Xeon Scalable (Sapphire Rapids) on LGA4677: 80 PCIe 5.0 lanes and 8 channels DDR5-4800 per socket (Intel platform slide reported by TweakTown {SPR})"),
}


def git(git_dir, *args):
    return subprocess.run(["git", "--git-dir", git_dir, *args], check=True, capture_output=True, text=True).stdout


def fields(text):
    out = {}
    for m in re.finditer(r'^"(\w+)"\s*=\s*("([^"]*)"|[0-9.]+)\s*;', text, re.M):
        out[m.group(1)] = m.group(3) if m.group(3) is not None else float(m.group(2))
    return out


def name_of(vendor, stem):
    """(display name, id, platform key digit) from the template file name, or None."""
    if vendor == "amd":
        m = re.fullmatch(r"epyc_(\d)(\w{3}[a-z]*)", stem)
        if not m:
            return None
        model = (m.group(1) + m.group(2)).upper()
        return f"EPYC {model}", f"amd-epyc-{(m.group(1) + m.group(2)).lower()}", m.group(1)
    m = re.fullmatch(r"xeon_e5_([12]6\d\d)([a-z]?)v([34])", stem)
    if m:
        suffix = m.group(2).upper()
        return (f"Xeon E5-{m.group(1)}{suffix} v{m.group(3)}",
                f"intel-xeon-e5-{m.group(1)}{m.group(2)}-v{m.group(3)}", "E5")
    m = re.fullmatch(r"xeon_(bronze|silver|gold|platinum)_(\d{4})([a-z]*)(\+?)", stem, re.I)
    if m and not m.group(2).startswith("92"):  # 92xx: Cascade Lake-AP, a BGA part
        tier, num, suf, plus = m.group(1).lower(), m.group(2), m.group(3).lower(), m.group(4)
        return (f"Xeon {tier.capitalize()} {num}{suf.upper()}{plus}",
                f"intel-xeon-{tier}-{num}{suf}{'-plus' if plus else ''}", "S")
    return None


def ron_str(s):
    return json.dumps(s, ensure_ascii=False)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--git-dir", required=True)
    ap.add_argument("--commit", required=True)
    a = ap.parse_args()
    if not re.fullmatch(r"[0-9a-f]{40}", a.commit):
        sys.exit("--commit must be 40 hex digits")
    existing = set(re.findall(r'^\s*id: "([^"]+)"', open(os.path.join(ROOT, "catalog/cpus.ron")).read(), re.M))
    imported = json.load(open(os.path.join(ROOT, "catalog/opendb/cpus.json")))
    for parts in imported["parts"].values():
        existing.update(p["id"] for p in parts)
    entries, skipped, counts, seen = [], [], {}, set()
    for vendor in ("amd", "intel"):
        for path in sorted(git(a.git_dir, "ls-tree", "--name-only", a.commit, f"hardware/cpu/{vendor}/").split()):
            stem = os.path.basename(path)[:-4]
            named = name_of(vendor, stem)
            if named is None:
                continue
            name, pid, digit = named
            f = fields(git(a.git_dir, "show", f"{a.commit}:{path}"))
            plat = PLATFORMS.get((str(f.get("type", "")).lower(), digit))
            if plat is None:
                continue
            if pid in seen:
                skipped.append(f"{path}: a second template of {pid}")
                continue
            seen.add(pid)
            if any(e == pid or e.startswith(pid + "-") for e in existing):
                skipped.append(f"{pid} (in the catalog already)")
                continue
            cores, threads, tdp = f.get("cores"), f.get("max_threads"), f.get("power")
            if not cores or not threads or not tdp:
                skipped.append(f"{path}: cores, threads or power missing")
                continue
            cores, threads = int(cores), int(threads)
            # Threads as the template gives them: the EPYC 9754S runs one thread per core.
            socket, lanes, mem, channels, max_gb, why = plat
            url = f"{REPO}/blob/{a.commit}/{path}"
            notes = (f"Cores, threads and {int(tdp)} W TDP from the quattor hardware template ({url}; model string "
                     f"'{f.get('model', '')}'). Lanes, memory type, channels and max memory derived "
                     f"from the platform: {why}. Package power (no PPT/PL2 in the source) and price unknown.")
            counts[socket] = counts.get(socket, 0) + 1
            entries.append((pid, (
                "        (\n"
                f"            id: {ron_str(pid)},\n"
                f"            vendor: {ron_str('AMD' if vendor == 'amd' else 'Intel')},\n"
                f"            name: {ron_str(name)},\n"
                f"            socket: {ron_str(socket)},\n"
                f"            cores: {cores},\n"
                f"            threads: {threads},\n"
                f"            tdp_w: {float(tdp)!r},\n"
                f"            package_power_w: None,\n"
                f"            pcie_lanes: (gen5: {lanes[0]}, gen4: {lanes[1]}, gen3: {lanes[2]}),\n"
                f"            memory_types: [{mem}],\n"
                f"            memory_channels: {channels},\n"
                f"            max_memory_gb: {max_gb if max_gb is not None else 'None'},\n"
                f"            source: {ron_str(url)},\n"
                f"            notes: {ron_str(notes)},\n"
                "        ),\n")))
    entries.sort()
    head = (
        "// Server CPUs the curated catalog/cpus.ron and the OpenDB import lack, generated by\n"
        "// xtask/quattor_cpus.py from the quattor hardware template library\n"
        f"// ({REPO}, Apache 2.0) at commit {a.commit}.\n"
        "// Do not edit by hand: curate an entry by adding it to cpus.ron (the curated file wins by id).\n"
        f"// {len(entries)} CPUs: " + ", ".join(f"{k} {v}" for k, v in sorted(counts.items())) + ".\n"
        f"// Left out as already in the catalog: {len(skipped)}.\n"
        "#![enable(implicit_some)]\n(\n    cpus: [\n")
    with open(os.path.join(ROOT, "catalog/cpus-quattor.ron"), "w") as out:
        out.write(head + "".join(e for _, e in entries) + "    ],\n)\n")
    print(f"{len(entries)} CPUs written, {len(skipped)} left out", file=sys.stderr)


if __name__ == "__main__":
    main()
