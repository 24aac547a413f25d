namespace M;

public record Exec(object H, int C);

public abstract class W : B
{
    public abstract Task<Unit> Handle(IRequest request, IServiceProvider sp,
        CancellationToken ct);
    public static bool operator ==(Unit a, Unit b) => true;
}

public interface ISender
{
    /// doc
    Task Send(int a);
    /// doc
    Task Send<T>(T a)
        where T : class;
    Task Send(object a);
}
