# Sourced by bench/compare/compare.sh and bench/shm/compare-shm.sh.
# param_args_from FILE: fills the array param_args with one `--mca NAME
# VALUE` per `name = value` line of an MCA parameter file (what
# rabred-calibrate writes), skipping blank and comment lines.  Passed to
# mpirun one by one, because naming the file through mca_base_param_files
# would replace Open MPI's own list of files.
param_args_from() {
    local pname pvalue
    param_args=()
    while IFS=' =' read -r pname pvalue; do
        case $pname in ''|'#'*) continue ;; esac
        param_args+=(--mca "$pname" "$pvalue")
    done <"$1"
}
