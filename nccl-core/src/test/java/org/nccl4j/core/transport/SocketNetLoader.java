package org.nccl4j.core.transport;

import java.net.MalformedURLException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import org.nccl4j.net.spi.Net;
import org.nccl4j.net.spi.NetProvider;

/**
 * Loads the real Socket net for NET transport tests in a class loader of its own. It is a test
 * dependency of nccl-core kept off the test class path on purpose (its service file would join
 * the providers initNet's tests expect): nccl-core's POM passes the path Maven resolved for it,
 * the reactor's own build of the module, as {@value #PROPERTY}. Netty and the SPI come from the
 * test class path.
 */
final class SocketNetLoader {
    static final String PROPERTY = "nccl4j.test.socketNet";

    private SocketNetLoader() {
    }

    /**
     * @return a new, uninitialised Socket net
     * @throws IllegalStateException when the build did not say where the Socket net is
     */
    static Net create() {
        String where = System.getProperty(PROPERTY);
        if (where == null || where.startsWith("${") || !Files.exists(Path.of(where))) {
            throw new IllegalStateException(PROPERTY + " is " + where + ", not the Socket net's jar or classes: run "
                    + "this test through Maven (mvn -pl nccl-core -am verify -Dtest=NetTransportTest), whose "
                    + "dependency:properties goal sets it");
        }
        try {
            // Parent: this loader, so the SPI types are the ones nccl-core sees.
            URLClassLoader loader = new URLClassLoader("nccl-net-socket", new URL[] {Path.of(where).toUri().toURL()},
                    SocketNetLoader.class.getClassLoader());
            NetProvider p = (NetProvider) loader.loadClass("org.nccl4j.net.socket.SocketNetProvider")
                    .getConstructor().newInstance();
            return p.create();
        } catch (ReflectiveOperationException | MalformedURLException e) {
            throw new IllegalStateException("cannot load the Socket net from " + where, e);
        }
    }
}
