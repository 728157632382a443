# PostgreSQL for the compose `cluster` profile (docker/compose.yaml), from Debian 12's
# postgresql-15 package on the same bookworm-slim base as the zone server's image.
#
# Why not Docker Hub's postgres:15: an image registry may be out of reach (our CI reaches
# Debian's mirror only: scripts/docker-base.sh makes the base image from it), and this is the
# PostgreSQL the storage tests run (scripts/install-deps.sh). It keeps that image's interface
# where compose uses it: POSTGRES_USER, POSTGRES_PASSWORD and POSTGRES_DB make the role and the
# database on the first start (postgres-entrypoint.sh), the data lives in
# /var/lib/postgresql/data, and pg_isready is on the PATH for the healthcheck.
#
#   docker build -f docker/cluster/postgres.Dockerfile -t zone-postgres docker/cluster
FROM debian:bookworm-slim
# The package's postinst adds the user `postgres`; it makes no cluster of its own (the
# entrypoint makes one in $PGDATA). The socket directory (pg_isready, psql inside) is made here:
# no systemd-tmpfiles in a container.
RUN install -d /etc/postgresql-common/createcluster.d \
    && echo 'create_main_cluster = false' >/etc/postgresql-common/createcluster.d/no-main.conf \
    && apt-get update \
    && apt-get install -y --no-install-recommends postgresql-15 \
    && rm -rf /var/lib/apt/lists/* \
    && install -d -o postgres -g postgres -m 0700 /var/lib/postgresql/data \
    && install -d -o postgres -g postgres -m 2775 /var/run/postgresql
COPY postgres-entrypoint.sh /usr/local/bin/postgres-entrypoint.sh
ENV PATH=/usr/lib/postgresql/15/bin:$PATH PGDATA=/var/lib/postgresql/data
VOLUME /var/lib/postgresql/data
USER postgres
EXPOSE 5432
HEALTHCHECK --interval=2s --timeout=3s --retries=30 CMD ["pg_isready", "-q"]
ENTRYPOINT ["/usr/local/bin/postgres-entrypoint.sh"]
