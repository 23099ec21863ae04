package org.nccl4j.core.transport;

import java.net.MalformedURLException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.nccl4j.net.spi.Net;
import org.nccl4j.net.spi.NetProvider;

/**
 * Loads the real Socket net for NET transport tests in a class loader of its own. It is not a
 * test dependency of nccl-core on purpose: on the test class path its service file would join
 * the providers initNet's tests expect. The classes come from the sibling module's build
 * ({@code ../nccl-net-socket/target/classes}) or the local Maven repository, Netty from the
 * local repository at the parent POM's {@code netty.version}.
 */
final class SocketNetLoader {
    private static final String[] NETTY = {"netty-common", "netty-buffer", "netty-resolver", "netty-transport",
        "netty-transport-native-unix-common", "netty-transport-classes-epoll", "netty-transport-native-epoll"};

    private SocketNetLoader() {
    }

    /**
     * @return a new, uninitialised Socket net, or {@code null} with the reason in
     *     {@link #whyNot()} when its classes are not built here
     */
    static Net create() {
        try {
            List<URL> urls = urls();
            if (urls == null) {
                return null;
            }
            // Parent: this loader, so the SPI types are the ones nccl-core sees.
            URLClassLoader loader = new URLClassLoader("nccl-net-socket", urls.toArray(URL[]::new),
                    SocketNetLoader.class.getClassLoader());
            NetProvider p = (NetProvider) loader.loadClass("org.nccl4j.net.socket.SocketNetProvider")
                    .getConstructor().newInstance();
            return p.create();
        } catch (ReflectiveOperationException | MalformedURLException e) {
            why = e.toString();
            return null;
        }
    }

    private static String why = "";

    /** @return why {@link #create()} returned {@code null} */
    static String whyNot() {
        return why;
    }

    private static List<URL> urls() throws MalformedURLException {
        Path root = Path.of(System.getProperty("user.dir")).getParent();
        Path pom = root.resolve("pom.xml");
        String version;
        String nettyVersion;
        try {
            String text = Files.readString(pom);
            nettyVersion = first(Pattern.compile("<netty.version>([^<]+)</netty.version>").matcher(text));
            version = first(Pattern.compile("<artifactId>nccl4j-parent</artifactId>\\s*<version>([^<]+)</version>")
                    .matcher(text));
        } catch (java.io.IOException e) {
            why = "cannot read " + pom + ": " + e;
            return null;
        }
        Path repo = Path.of(System.getProperty("maven.repo.local",
                System.getProperty("user.home") + "/.m2/repository"));
        List<URL> urls = new ArrayList<>();
        Path classes = root.resolve("nccl-net-socket/target/classes");
        Path jar = repo.resolve("org/nccl4j/nccl-net-socket/" + version + "/nccl-net-socket-" + version + ".jar");
        if (Files.isRegularFile(classes.resolve("org/nccl4j/net/socket/SocketNet.class"))) {
            urls.add(classes.toUri().toURL());
        } else if (Files.isRegularFile(jar)) {
            urls.add(jar.toUri().toURL());
        } else {
            why = "nccl-net-socket is not built (" + classes + ", " + jar + ")";
            return null;
        }
        for (String a : NETTY) {
            String classifier = a.equals("netty-transport-native-epoll") ? "-linux-x86_64" : "";
            Path p = repo.resolve("io/netty/" + a + "/" + nettyVersion + "/" + a + "-" + nettyVersion + classifier + ".jar");
            if (!Files.isRegularFile(p)) {
                if (!classifier.isEmpty()) {
                    continue; // NIO still works without the native epoll library
                }
                why = p + " is missing";
                return null;
            }
            urls.add(p.toUri().toURL());
        }
        return urls;
    }

    private static String first(Matcher m) {
        if (!m.find()) {
            throw new IllegalStateException("not in the parent POM: " + m.pattern());
        }
        return m.group(1);
    }
}
