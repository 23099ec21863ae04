package org.nccl4j.net.ext;

import org.nccl4j.net.spi.NetContext;
import org.nccl4j.net.spi.NetException;
import org.nccl4j.net.spi.NetLogger;

/**
 * The child JVM of {@link PluginLogAtExitTest}: initialises the plugin named by {@code args[0]}
 * with a logger that prints {@code java: <level> <message>} on stdout for INFO and below, then
 * ends as {@code args[1]} says: {@code return} from main, {@code exit} ({@code System.exit(0)}) or
 * {@code halt} ({@code Runtime.halt(0)}, no shutdown hooks).
 */
public final class AtExitChild {
    private AtExitChild() {
    }

    /**
     * @param args plugin library, how to end
     * @throws NetException if the plugin's init fails
     */
    public static void main(String[] args) throws NetException {
        NetLogger logger = new NetLogger() {
            @Override
            public void log(int level, long subsystem, String message) {
                System.out.println("java: " + level + " " + message);
            }

            @Override
            public boolean enabled(int level) {
                return level <= NetLogger.INFO;
            }
        };
        new ExtNetProvider(args[0]).create().init(new NetContext() {
            @Override
            public NetLogger logger() {
                return logger;
            }

            @Override
            public String param(String ncclName) {
                return null;
            }
        });
        System.out.println("init ok");
        System.out.flush();
        switch (args[1]) {
            case "exit" -> System.exit(0);
            case "halt" -> Runtime.getRuntime().halt(0);
            default -> { }
        }
    }
}
