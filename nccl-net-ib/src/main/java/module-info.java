/**
 * NCCL's {@code IB} network (InfiniBand and RoCE through libibverbs), found by nccl4j's initNet
 * through {@link org.nccl4j.net.spi.NetProvider}. {@link org.nccl4j.net.ib.IbVerbs} says whether
 * it can be used on this machine and, if not, why.
 */
module org.nccl4j.net.ib {
    requires org.nccl4j.net.spi;
    // jnr-ffi 2.2.x is an automatic module (Automatic-Module-Name in its manifest).
    requires org.jnrproject.ffi;
    // jnr-ffi generates its bindings with ASM, but as an automatic module it cannot say so; without
    // this line ASM (an explicit module) is not resolved on the module path and the first
    // LibraryLoader.load fails with NoClassDefFoundError: org/objectweb/asm/ClassVisitor.
    requires org.objectweb.asm;

    exports org.nccl4j.net.ib;

    provides org.nccl4j.net.spi.NetProvider with org.nccl4j.net.ib.IbNetProvider;
}
