#pragma once

namespace geoalign::cli {

// Each command parses its own options from argv[first..] and returns the exit status.
int run_score(int argc, char** argv, int first);
int run_serve(int argc, char** argv, int first);
int run_loadtest(int argc, char** argv, int first);
int run_eval(int argc, char** argv, int first);
int run_bench(int argc, char** argv, int first);
int run_profile(int argc, char** argv, int first);
int run_parse(int argc, char** argv, int first);
int run_train_parser(int argc, char** argv, int first);
int run_features(int argc, char** argv, int first);
int run_term_weights(int argc, char** argv, int first);
int run_index(int argc, char** argv, int first);
int run_search(int argc, char** argv, int first);
int run_dedup(int argc, char** argv, int first);
int run_link(int argc, char** argv, int first);
int run_version(int argc, char** argv, int first);

}  // namespace geoalign::cli
