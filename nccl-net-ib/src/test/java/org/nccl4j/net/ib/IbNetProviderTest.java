package org.nccl4j.net.ib;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.ServiceLoader;

import org.junit.jupiter.api.Test;
import org.nccl4j.net.spi.NetProvider;

class IbNetProviderTest {
    @Test
    void serviceLoaderFindsIb() {
        List<NetProvider> ib = ServiceLoader.load(NetProvider.class).stream().map(ServiceLoader.Provider::get)
                .filter(p -> p.name().equals("IB")).toList();
        assertEquals(1, ib.size());
        NetProvider p = ib.get(0);
        assertInstanceOf(IbNetProvider.class, p);
        assertEquals(200, p.priority());
        assertEquals(NetProvider.SPI_VERSION, p.spiVersion());
        assertNull(p.createCollNet());
    }

    @Test
    void createIsCheapAndNamed() {
        var net = new IbNetProvider().create();
        assertInstanceOf(IbNet.class, net);
        assertEquals("IB", net.name());
        assertEquals(IbNet.MAX_REQUESTS, net.maxRequests());
    }

    @Test
    void moduleDescriptorProvidesTheProvider() {
        var module = IbNetProvider.class.getModule();
        // On the class path (surefire here) the module is unnamed; the descriptor is checked by
        // the compiler. When named, it must declare the provider.
        if (module.isNamed()) {
            assertTrue(module.getDescriptor().provides().stream()
                    .anyMatch(p -> p.service().equals(NetProvider.class.getName())
                            && p.providers().contains(IbNetProvider.class.getName())));
        }
    }
}
