# bench/stats.awk: medians and ratios of bench/run.sh's raw results.
#
# Input lines: ROUND OP SEQ COLUMN NS, where SEQ is the run's place in its
# round's sequence for OP (N C1 N C2 N ...: every non-native run sits between
# two native runs) and NS is "fail" when that run failed.  The op and column
# order, the iterations and the run's facts come from the environment
# (SBP_META_*), set by run.sh.  Prints the table and the budget lines on
# stdout; writes the same as JSON to the file named by -v json.
#
# A column's ratio for an op is the median over rounds of NS divided by the
# mean of the two native runs beside it (one, if the other failed), with the
# min and max of those per-round ratios: on a shared machine the spread says
# how far to trust the median.  The native figure is the median of all
# native runs.

function ok(x) { return x != "" && x != "fail" }

function isort(a, n,    i, j, t) {
	for (i = 2; i <= n; i++) {
		t = a[i]
		for (j = i - 1; j >= 1 && a[j] > t; j--)
			a[j + 1] = a[j]
		a[j + 1] = t
	}
}

function median(a, n) {
	isort(a, n)
	return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}

function commas(x,    s, neg) {
	s = sprintf("%.0f", x)
	neg = s ~ /^-/
	if (neg)
		s = substr(s, 2)
	while (s ~ /[0-9][0-9][0-9][0-9]/)
		sub(/[0-9][0-9][0-9]([,]|$)/, ",&", s)
	return (neg ? "-" : "") s
}

function jstr(s) {
	gsub(/\\/, "\\\\", s)
	gsub(/"/, "\\\"", s)
	gsub(/\t/, "\\t", s)
	gsub(/\n/, "\\n", s)
	return "\"" s "\""
}

function budget(op,    k) {
	k = "BUDGET_" op
	if (k in ENVIRON && ENVIRON[k] != "")
		return ENVIRON[k] + 0
	return op == "open" || op == "open_rel" ? 1.10 : 1.05
}

{
	at[$1, $2, $3] = $5
	kind[$1, $2, $3] = $4
	if ($4 == "native")
		nat[$1, $2, ++nnat[$1, $2]] = $5
	else
		pos[$1, $2, $4] = $3
}

END {
	nops = split(ENVIRON["SBP_META_OPS"], ops, " ")
	ncols = split(ENVIRON["SBP_META_COLS"], cols, " ")
	nit = split(ENVIRON["SBP_META_ITERS"], its, " ")
	for (i = 1; i <= nit; i++) {
		split(its[i], kv, "=")
		iter[kv[1]] = kv[2]
	}

	# Medians and ratios.
	for (o = 1; o <= nops; o++) {
		op = ops[o]
		n = 0; tot = 0
		delete v
		for (r = 1; r <= rounds; r++)
			for (i = 1; i <= nnat[r, op]; i++) {
				tot++
				if (ok(nat[r, op, i]))
					v[++n] = nat[r, op, i] + 0
			}
		nok[op, "native"] = n
		nrun[op, "native"] = tot
		med[op, "native"] = n ? median(v, n) : -1
		for (c = 2; c <= ncols; c++) {
			col = cols[c]
			n = 0; m = 0; tot = 0
			delete v; delete q
			for (r = 1; r <= rounds; r++) {
				if (!((r, op, col) in pos))
					continue
				s = pos[r, op, col]
				tot++
				x = at[r, op, s]
				refsum = 0; refn = 0
				for (d = -1; d <= 1; d += 2)
					if (kind[r, op, s + d] == "native" && ok(at[r, op, s + d])) {
						refsum += at[r, op, s + d]
						refn++
					}
				ref[r, op, col] = refn ? refsum / refn : ""
				if (!ok(x))
					continue
				v[++n] = x + 0
				if (refn && refsum > 0)
					q[++m] = (x + 0) / (refsum / refn)
			}
			nok[op, col] = n
			nrun[op, col] = tot
			med[op, col] = n ? median(v, n) : -1
			nratio[op, col] = m
			if (m) {
				ratio[op, col] = median(q, m)
				rmin[op, col] = q[1]   # q is sorted by median()
				rmax[op, col] = q[m]
			}
		}
	}

	# The table.
	printf "\nns per operation (%s batch of each run, median over %d rounds); ratio = median of\n", stat, rounds
	printf "per-round ratios to the native runs beside it (min-max of those ratios)\n\n"
	printf "| %-8s | %9s | %9s |", "op", "iter", "native"
	for (c = 2; c <= ncols; c++)
		printf " %-27s |", cols[c]
	printf "\n|%s|%s|%s|", "----------", "-----------", "-----------"
	for (c = 2; c <= ncols; c++)
		printf "%s|", "-----------------------------"
	printf "\n"
	for (o = 1; o <= nops; o++) {
		op = ops[o]
		printf "| %-8s | %9s | %9s |", op, commas(iter[op]), \
			nok[op, "native"] ? commas(med[op, "native"]) : "fail"
		for (c = 2; c <= ncols; c++) {
			col = cols[c]
			if (!nok[op, col])
				cell = "fail"
			else if (!nratio[op, col])
				cell = commas(med[op, col])
			else
				cell = sprintf("%s %.2fx (%.2f-%.2f)", commas(med[op, col]),
					       ratio[op, col], rmin[op, col], rmax[op, col])
			if (nok[op, col] && nok[op, col] < nrun[op, col])
				cell = cell sprintf(" [%d/%d ok]", nok[op, col], nrun[op, col])
			printf " %-27s |", cell
		}
		printf "\n"
	}

	# The budgets: the shim's median ratio against its allowance.
	if (ENVIRON["SBP_META_COLS"] !~ /(^| )shim( |$)/)
		printf "\nbudget: no shim column in this run, nothing checked\n"
	for (c = 2; c <= ncols; c++) {
		col = cols[c]
		if (col != "shim" && col != "shim_alone")
			continue
		printf "\nbudget, %s column%s:\n", col, \
			col == "shim" ? "" : " (informational: no kernel layer)"
		for (o = 1; o <= nops; o++) {
			op = ops[o]
			b = budget(op)
			if (!nratio[op, col]) {
				verdict[op, col] = "FAIL"
				printf "  %-8s  no result          <= %.2fx  FAIL (did not run)\n", op, b
				continue
			}
			verdict[op, col] = ratio[op, col] <= b ? "PASS" : "OVER"
			printf "  %-8s  %.2fx (%.2f-%.2f)  <= %.2fx  %s%s\n", op, ratio[op, col], \
				rmin[op, col], rmax[op, col], b, verdict[op, col], \
				index(" " ENVIRON["SBP_META_UNHOOKED"] " ", " " col ":" op " ") ? \
				" (not hooked: measures libc)" : ""
		}
	}
	printf "\n%s rounds in %d s; commit %s; %s CPUs; kernel %s\n", rounds, elapsed, \
		ENVIRON["SBP_META_COMMIT"], ENVIRON["SBP_META_NPROC"], ENVIRON["SBP_META_KERNEL"]

	# The JSON.
	J = json
	printf("{\n") > J
	printf("  \"date\": %s,\n", jstr(ENVIRON["SBP_META_DATE"])) > J
	printf("  \"machine\": %s,\n", jstr(ENVIRON["SBP_META_MACHINE"])) > J
	printf("  \"kernel\": %s,\n", jstr(ENVIRON["SBP_META_KERNEL"])) > J
	printf("  \"nproc\": %d,\n", ENVIRON["SBP_META_NPROC"]) > J
	printf("  \"commit\": %s,\n", jstr(ENVIRON["SBP_META_COMMIT"])) > J
	printf("  \"rounds\": %d,\n", rounds) > J
	printf("  \"statistic\": %s,\n", jstr(stat " batch ns/op per run; ratio = median over rounds of ns / mean of the native runs beside it")) > J
	printf("  \"elapsed_s\": %d,\n", elapsed) > J
	printf("  \"shim_command\": %s,\n", jstr(ENVIRON["SBP_META_SHIM_CMD"])) > J
	notes = ENVIRON["SBP_META_NOTES"]
	sub(/\n$/, "", notes)
	printf("  \"notes\": %s,\n", jstr(notes)) > J
	printf("  \"columns\": [") > J
	for (c = 1; c <= ncols; c++)
		printf("%s%s", (c > 1 ? ", " : ""), jstr(cols[c])) > J
	printf("],\n  \"ops\": [\n") > J
	for (o = 1; o <= nops; o++) {
		op = ops[o]
		printf("    {\n      \"op\": %s,\n      \"iter\": %d,\n", jstr(op), iter[op]) > J
		printf("      \"budget\": %.2f,\n      \"results\": {\n", budget(op)) > J
		for (c = 1; c <= ncols; c++) {
			col = cols[c]
			printf("        %s: {\"median_ns\": %s", jstr(col),
			       (nok[op, col] ? sprintf("%.1f", med[op, col]) : "null")) > J
			if (col != "native") {
				if (nratio[op, col])
					printf(", \"ratio\": %.4f, \"ratio_min\": %.4f, \"ratio_max\": %.4f",
					       ratio[op, col], rmin[op, col], rmax[op, col]) > J
				else
					printf(", \"ratio\": null, \"ratio_min\": null, \"ratio_max\": null") > J
			}
			if ((op, col) in verdict)
				printf(", \"verdict\": %s", jstr(verdict[op, col])) > J
			printf(", \"ns\": [") > J
			for (r = 1; r <= rounds; r++) {
				printf("%s", (r > 1 ? ", " : "")) > J
				if (col == "native") {
					printf("[") > J
					for (i = 1; i <= nnat[r, op]; i++)
						printf("%s%s", (i > 1 ? ", " : ""), (ok(nat[r, op, i]) ? nat[r, op, i] : "null")) > J
					printf("]") > J
				} else
					printf("%s", (ok(at[r, op, pos[r, op, col]]) ? at[r, op, pos[r, op, col]] : "null")) > J
			}
			printf("]") > J
			if (col != "native") {
				printf(", \"native_beside_ns\": [") > J
				for (r = 1; r <= rounds; r++)
					printf("%s%s", (r > 1 ? ", " : ""),
					       (ref[r, op, col] != "" ? sprintf("%.1f", ref[r, op, col]) : "null")) > J
				printf("]") > J
			}
			printf("}%s\n", (c < ncols ? "," : "")) > J
		}
		printf("      }\n    }%s\n", (o < nops ? "," : "")) > J
	}
	printf("  ]\n}\n") > J
	close(J)
}
