# gpu_probes/probe.mk: build rules for envparity-probe (placeholder until
# the probe lands).  Sets PROBE_ALL, PROBE_UNITS.
PROBE_ALL :=
PROBE_UNITS :=
