# Issue 23, item "ooc": the out-of-core runtime moved into namespace stepgen::rt::ooc
# (runtime/include/stepgen/ooc/*.hpp; stepgen/ooc.hpp still includes them all).
# Turns code written against the old names into the new ones:
#   sed -E -i -f scripts/ooc-renames.sed FILE...
# Qualified (rt::ooc_plan -> rt::ooc::plan) and bare (ooc_plan -> ooc::plan, for code inside
# namespace stepgen::rt or under `using namespace stepgen::rt`) uses alike. Unchanged: the
# backends' cl::OocRunner, cuda::OocRunner, cl::OocShare, cuda::OocShare, cl::OocStep,
# cuda::OocStep, cl::ooc_slab, cuda::auto_device_memory, and the generator's own
# model::ooc_request (only rt::ooc_request is renamed). A bare use in another namespace (cl,
# cuda, the generator's) needs `rt::` before it. Then clang-format what changed: some lines
# grow past the limit (two continuation lines of the templates moved by one column).
# Types
s/\bOocOptions\b/ooc::Options/g
s/\bOocArray\b/ooc::Array/g
s/\bOocRequest\b/ooc::Request/g
s/\bOocChunk\b/ooc::Chunk/g
s/\bOocPart\b/ooc::Part/g
s/\bOocSchedule\b/ooc::Schedule/g
s/\bOocOp\b/ooc::Op/g
s/\bOocBuffer\b/ooc::Buffer/g
s/\bOocLink\b/ooc::Link/g
s/\bOocStats\b/ooc::Stats/g
# Functions and constants (ooc_request only where qualified: the generator has its own)
s/\brt::ooc_request\b/rt::ooc::request/g
s/\b(rt::)?ooc_plan\b/\1ooc::plan/g
s/\b(rt::)?ooc_run_stats\b/\1ooc::run_stats/g
s/\b(rt::)?ooc_schedule\b/\1ooc::schedule/g
s/\b(rt::)?ooc_band\b/\1ooc::band/g
s/\b(rt::)?ooc_band_store_plane\b/\1ooc::band_store_plane/g
s/\b(rt::)?ooc_band_store_box\b/\1ooc::band_store_box/g
s/\b(rt::)?ooc_band_owned_lo\b/\1ooc::band_owned_lo/g
s/\b(rt::)?ooc_band_copy_bytes\b/\1ooc::band_copy_bytes/g
s/\b(rt::)?ooc_foreign_plan\b/\1ooc::foreign_plan/g
s/\b(rt::)?ooc_passes\b/\1ooc::passes/g
s/\b(rt::)?ooc_ops\b/\1ooc::ops/g
s/\b(rt::)?ooc_compute\b/\1ooc::compute/g
s/\b(rt::)?ooc_execute\b/\1ooc::execute/g
s/\b(rt::)?ooc_share\b/\1ooc::share/g
s/\b(rt::)?ooc_probe_planes\b/\1ooc::probe_planes/g
s/\b(rt::)?ooc_measure_link\b/\1ooc::measure_link/g
s/\b(rt::)?ooc_fastest\b/\1ooc::fastest/g
s/\b(rt::)?ooc_measure_copies\b/\1ooc::measure_copies/g
s/\b(rt::)?ooc_computed_planes\b/\1ooc::computed_planes/g
s/\b(rt::)?ooc_measure_device\b/\1ooc::measure_device/g
s/\b(rt::)?ooc_needed_planes\b/\1ooc::needed_planes/g
s/\b(rt::)?ooc_view\b/\1ooc::view/g
s/\b(rt::)?ooc_pass_cells\b/\1ooc::pass_cells/g
s/\b(rt::)?ooc_compute_seconds\b/\1ooc::compute_seconds/g
s/\b(rt::)?ooc_simulate\b/\1ooc::simulate/g
s/\b(rt::)?ooc_lower_bound\b/\1ooc::lower_bound/g
s/\b(rt::)?ooc_predict\b/\1ooc::predict/g
s/\b(rt::)?ooc_link_bound\b/\1ooc::link_bound/g
s/\b(rt::)?ooc_choose\b/\1ooc::choose/g
s/\b(rt::)?print_ooc_report\b/\1ooc::print_report/g
s/\b(rt::)?print_ooc_usage\b/\1ooc::print_usage/g
s/\b(rt::)?take_ooc_options\b/\1ooc::take_options/g
s/\b(rt::)?parse_size\b/\1ooc::parse_size/g
s/\b(rt::)?kAutoMemoryShare\b/\1ooc::kAutoMemoryShare/g
s/\b(rt::)?link_figures_text\b/\1ooc::link_figures_text/g
# (cl::copy_host_box and cuda::copy_host_box stay: aliases of it in those namespaces; a bare
# use inside namespace cl or cuda, through those aliases, must be put back by hand)
s/\brt::copy_host_box\b/rt::ooc::copy_host_box/g
s/(^|[^:[:alnum:]_])copy_host_box\b/\1ooc::copy_host_box/g
s/\b(rt::)?decide_out_of_core\b/\1ooc::decide/g
