/* conf/default.ini, built into the binary: one source for the default. */
	.section .rodata
	.global sbp_default_ini
	.hidden sbp_default_ini
	.type sbp_default_ini, @object
sbp_default_ini:
	.incbin DEFAULT_INI
	.byte 0
	.size sbp_default_ini, . - sbp_default_ini
	.section .note.GNU-stack,"",@progbits
