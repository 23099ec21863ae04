package org.nccl4j.examples;

import static com.tngtech.archunit.library.Architectures.layeredArchitecture;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/**
 * The modules depend down the README's module table: the API and the net SPI on nothing of
 * nccl4j, each net only on the SPI, the core on the API and the SPI (nets reach it through
 * ServiceLoader), the CUDA and HIP backends on the core, the API and the SPI's {@code dlopen}
 * (never on a net, nor on each other), and only the applications and the device backends on the core. Reads the main classes of every
 * module on this class path (the reactor's jars), none of their tests.
 */
class ModuleLayeringTest {
    @Test
    void modulesDependDownTheModuleTable() {
        ImportOption mainOnly = location -> !location.contains("/test-classes/") && !location.contains("-tests.jar");
        JavaClasses all = new ClassFileImporter().withImportOption(mainOnly).importPackages("org.nccl4j");
        layeredArchitecture().consideringOnlyDependenciesInLayers()
                .layer("API").definedBy("org.nccl4j", "org.nccl4j.spi..")
                .layer("NetSpi").definedBy("org.nccl4j.net.spi..")
                .layer("Core").definedBy("org.nccl4j.core..")
                .layer("Socket").definedBy("org.nccl4j.net.socket..")
                .layer("IB").definedBy("org.nccl4j.net.ib..")
                .layer("NativeNets").definedBy("org.nccl4j.net.ext..")
                .layer("Cuda").definedBy("org.nccl4j.gpu.cuda..")
                .layer("Hip").definedBy("org.nccl4j.gpu.hip..")
                .layer("Apps").definedBy("org.nccl4j.examples..")
                .whereLayer("Apps").mayNotBeAccessedByAnyLayer()
                .whereLayer("Core").mayOnlyBeAccessedByLayers("Cuda", "Hip", "Apps")
                .whereLayer("Socket").mayOnlyBeAccessedByLayers("Apps")
                .whereLayer("IB").mayOnlyBeAccessedByLayers("Apps")
                .whereLayer("NativeNets").mayOnlyBeAccessedByLayers("Apps")
                .whereLayer("Cuda").mayOnlyBeAccessedByLayers("Apps")
                .whereLayer("Hip").mayOnlyBeAccessedByLayers("Apps")
                .whereLayer("NetSpi").mayOnlyBeAccessedByLayers("Core", "Socket", "IB", "NativeNets", "Cuda", "Hip", "Apps")
                .whereLayer("API").mayOnlyBeAccessedByLayers("Core", "Cuda", "Hip", "Apps")
                .check(all);
    }
}
