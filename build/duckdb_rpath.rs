//! Build script shared by every package whose binaries link DuckDB: it records the folder of the
//! prebuilt `libduckdb.so` as an rpath so the binaries find it at run time without `LD_LIBRARY_PATH`.

fn main() {
    println!("cargo:rerun-if-env-changed=DUCKDB_LIB_DIR");
    if let Ok(dir) = std::env::var("DUCKDB_LIB_DIR") {
        println!("cargo:rustc-link-arg=-Wl,-rpath,{dir}");
    }
}
