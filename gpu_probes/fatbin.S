/*
 * fatbin.S: the cuda backend's kernels (kernels.cu, compiled by nvcc into
 * kernels.fatbin) embedded in the probe as probe_fatbin .. probe_fatbin_end.
 * The build passes the fatbin's folder with -Wa,-I; the alignment is the
 * one cuModuleLoadData expects of a fatbin image.
 */
	.section .rodata
	.balign 64
	.globl probe_fatbin
	.type probe_fatbin, @object
probe_fatbin:
	.incbin "kernels.fatbin"
	.globl probe_fatbin_end
probe_fatbin_end:
	.byte 0
	.size probe_fatbin, . - probe_fatbin

	.section .note.GNU-stack, "", @progbits
