/**
 * The nccl4j API: communicators, unique ids, data types, reduction operations, results and
 * exceptions. An implementation ({@code nccl-core}) is found at run time through
 * {@link org.nccl4j.spi.NcclRuntime}.
 */
module org.nccl4j.api {
    exports org.nccl4j;
    exports org.nccl4j.spi;
    uses org.nccl4j.spi.NcclRuntime;
}
